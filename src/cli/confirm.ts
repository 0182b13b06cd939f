// --confirm: kguard asks a person on the terminal before it applies, and never asks anyone else.
import { createInterface } from 'node:readline';
import { InputError } from '../errors.js';

/** Refuses --confirm when nobody can answer: stdin must be a terminal, and so must the stream the question goes to. */
export function requireTerminal(stdinIsTty: boolean, outputIsTty: boolean): void {
  if (stdinIsTty && outputIsTty) return;
  throw new InputError(
    `--confirm asks before applying, but ${stdinIsTty ? 'the output' : 'stdin'} is not a terminal, so nobody could answer. ` +
      'Pass --yes to apply without asking (as in CI), or run it on a terminal; nothing was applied.',
  );
}

/** Asks once; only y or yes (any case) is a yes. Ctrl-C or Ctrl-D is a no. */
export function askYesNo(
  question: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<boolean> {
  return new Promise((resolve) => {
    const prompt = createInterface({ input, output, terminal: true });
    let answered = false;
    const finish = (yes: boolean) => {
      if (answered) return;
      answered = true;
      prompt.close();
      resolve(yes);
    };
    prompt.on('SIGINT', () => {
      output.write('\n');
      finish(false);
    });
    prompt.on('close', () => finish(false));
    prompt.question(question, (answer) => finish(/^(y|yes)$/i.test(answer.trim())));
  });
}
