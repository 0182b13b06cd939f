// The one sanitising function for text the cluster says (waiting and event messages, container
// logs): a container can print anything, and a terminal would obey it. Pure.

// CSI/OSC escape sequences (colours, cursor moves, window titles), then any other control byte.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One line of cluster text, safe to print: no escapes, no control bytes, at most `maxLength` characters. */
export function sanitize(text: string, maxLength = 2000): string {
  const clean = text.replace(ESCAPES, '').replace(/\r?\n|\t/g, ' ').replace(CONTROL, '').trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

/** Log output as lines, each sanitised; trailing empty lines dropped. */
export function sanitizeLines(text: string, maxLength = 500): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n').map((line) => sanitize(line.replace(/\r/g, ''), maxLength));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
