// What a manifest file's bytes say before anything parses them. Shared by the reading of the
// inputs (phase-files.ts, limits.ts) and the CLI's early server dry run (kubectl/early-start.ts),
// which must not load yaml before it starts kubectl. No imports: it stays that light.

/** A file without these words holds no CustomResourceDefinition nor kguard.dev/phase object: one part, no phases. */
export const MAY_NEED_PHASES = /CustomResourceDefinition|kguard\.dev\/phase/;

/**
 * A document whose text is under this cannot hold 1 MiB of data nor make a 3 MiB body (JSON adds
 * quotes and commas, well under threefold): limits.ts does not parse it at all.
 */
export const PARSE_ABOVE_BYTES = 1024 * 1024;
