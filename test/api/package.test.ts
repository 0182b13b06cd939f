// The npm package as a consumer gets it (npm pack of the built checkout): what the tarball holds,
// the metadata registries show, and types that compile in a TypeScript project that has neither
// @types/node nor the DOM library, as well as in one that has @types/node.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  repository?: { url?: string };
  homepage?: string;
  bugs?: { url?: string };
  keywords?: string[];
};

let dir: string;
let tarball: string;
let files: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kguard-package-'));
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', dir], { cwd: repo });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, info!.filename);
  files = info!.files.map((file) => file.path);
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the npm tarball', () => {
  it('holds the compiled library, its types, the launchers and the schemas, and no source map without its source', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/kguard',
        'bin/kubectl-rollout_guard',
        'bin/kubectl_complete-rollout_guard',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/cli/main.js',
        // The CLI bundle, which the launchers run in an installed package (bin/launch.mjs).
        'dist/kguard.mjs',
        'schema/report.schema.json',
        'schema/events.schema.json',
      ]),
    );
    expect(files.some((file) => /^dist\/kguard-parts\/.+\.mjs$/.test(file))).toBe(true);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(
      files.filter((file) => /^(src|test|build|action-dist)\//.test(file) || file.startsWith('dist/test/')),
    ).toEqual([]);
  });

  it('says where the project lives, and takes compatible updates of its runtime dependencies', () => {
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\/github\.com\/[\w-]+\/kguard\.git$/);
    const home = manifest.repository!.url!.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(manifest.homepage).toBe(`${home}#readme`);
    expect(manifest.bugs?.url).toBe(`${home}/issues`);
    expect(manifest.keywords).toEqual(expect.arrayContaining(['kubernetes', 'kubectl', 'kubectl-plugin']));
    for (const [name, range] of Object.entries(manifest.dependencies)) expect(range, name).toMatch(/^\^\d/);
  });
});

describe('the published types', () => {
  /** A consumer project with the unpacked tarball and its runtime dependencies, and maybe @types/node. */
  async function consumer(withNodeTypes: boolean): Promise<{ exitCode: number; output: string }> {
    const project = join(dir, withNodeTypes ? 'with-node-types' : 'without-node-types');
    const modules = join(project, 'node_modules');
    await mkdir(join(modules, 'kguard'), { recursive: true });
    await execa('tar', ['xzf', tarball, '-C', join(modules, 'kguard'), '--strip-components=1']);
    for (const name of Object.keys(manifest.dependencies))
      await symlink(join(repo, 'node_modules', name), join(modules, name));
    if (withNodeTypes) {
      await mkdir(join(modules, '@types'));
      await symlink(join(repo, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'));
    }
    await writeFile(join(project, 'package.json'), '{"type":"module"}\n');
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: withNodeTypes ? ['node'] : [],
        },
        include: ['consumer.ts'],
      }),
    );
    await writeFile(
      join(project, 'consumer.ts'),
      [
        "import { apply, ExitCode, KguardError, type ApplyEvent, type ApplyReport } from 'kguard';",
        "import reportSchema from 'kguard/report.schema.json' with { type: 'json' };",
        'export async function deploy(): Promise<number> {',
        "  const report: ApplyReport = await apply({ files: ['web.yaml'], timeout: '2m', rollback: 'all', onEvent: (event: ApplyEvent, line) => void [event.kind, line.text] });",
        '  return report.exitCode === ExitCode.Success ? 0 : report.exitCode;',
        '}',
        'export const isKguardError = (error: unknown): boolean => error instanceof KguardError;',
        'export const schemaId: unknown = reportSchema.$id;',
        ...(withNodeTypes
          ? ["export const cancellable = () => apply({ files: ['web.yaml'], signal: AbortSignal.timeout(1000) });"]
          : []),
        '',
      ].join('\n'),
    );
    const result = await execa(join(repo, 'node_modules', '.bin', 'tsc'), ['-p', project], { reject: false });
    return { exitCode: result.exitCode ?? -1, output: `${result.stdout}${result.stderr}` };
  }

  it('compile in a consumer without @types/node, its lib checked (skipLibCheck false)', async () => {
    const result = await consumer(false);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);

  it('compile with @types/node too, and take its AbortSignal', async () => {
    const result = await consumer(true);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);
});
