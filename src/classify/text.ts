// Shapes text the cluster says (waiting and event messages, container logs) for a line-oriented
// report: one line per message, one entry per log line, long ones cut. Making it safe to print
// (escape sequences, control characters, CI workflow commands, Secret values) is not done here but
// by the one sanitising pass every event and the JSON report go through before a reporter sees them.
// Pure.

/** One line: newlines and tabs become spaces, at most `maxLength` characters. */
export function oneLine(text: string, maxLength = 2000): string {
  const flat = text.replace(/\r?\n|\r|\t/g, ' ').trim();
  return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
}

/** Log output as lines, each at most `maxLength` characters; trailing empty lines dropped. */
export function splitLines(text: string, maxLength = 500): string[] {
  const lines = text.split(/\r?\n/).map((line) => oneLine(line, maxLength));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
