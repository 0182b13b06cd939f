// What the size check costs on a 50 MB manifest (#45): section 10 of `npm run bench` (`--only size`),
// or alone: `node dist/test/bench/size-check.js [--mb 50] [--kguard PATH]`. kguard refuses an object
// the API server would refuse for its size before kubectl is called (manifests/limits.ts,
// size-stream.ts); a 2 GB CI runner must not be OOM-killed by the check, and #45 asks for at most
// 200 MiB. Four shapes, each one file of about --mb megabytes: one ConfigMap with one huge value
// (one line), one ConfigMap with many small keys, many ConfigMaps of 1 KiB with one oversized among
// them, and the many keys again as indented JSON. For each: the exit code, the wall time and kguard's peak RSS (VmHWM of its node
// process, sampled from /proc every 20 ms). No cluster: the check runs before the first kubectl call.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';

const head = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n`;

const shapes = (bytes: number): Record<string, () => string> => ({
  'one ConfigMap, one value': () => `${head('big')}  blob: ${'a'.repeat(bytes)}\n`,
  'one ConfigMap, many keys': () => {
    const lines = [head('many')];
    for (let index = 0, size = 0; size < bytes; index++) {
      const line = `  key${index}: ${'b'.repeat(90)}\n`;
      lines.push(line);
      size += line.length;
    }
    return lines.join('');
  },
  'many ConfigMaps, one oversized': () => {
    const documents = [`${head('oversized')}  blob: ${'c'.repeat(2 * 1024 * 1024)}\n`];
    for (let index = 0, size = documents[0]!.length; size < bytes; index++) {
      const document = `${head(`small-${index}`)}  value: ${'d'.repeat(1000)}\n`;
      documents.push(document);
      size += document.length;
    }
    return documents.join('---\n');
  },
  'JSON, one ConfigMap, many keys (indented)': () => {
    const data: Record<string, string> = {};
    for (let index = 0; index * 100 < bytes; index++) data[`key${index}`] = 'e'.repeat(90);
    return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'json' }, data }, null, 2);
  },
});

/** A kubeconfig whose cluster nobody serves: the check must answer before kubectl is asked anything. */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:9
contexts:
- name: nowhere
  context:
    cluster: nowhere
    user: nobody
current-context: nowhere
users:
- name: nobody
  user:
    token: bench
`;

async function measure(
  kguard: string,
  file: string,
  kubeconfig: string,
): Promise<{ exitCode: number; wallMs: number; peakRssMiB: number; said: string }> {
  const began = performance.now();
  const child = execa(kguard, ['apply', '-f', file], {
    env: { ...process.env, KUBECONFIG: kubeconfig, CI: 'true', NO_COLOR: '1' },
    reject: false,
    timeout: 10 * 60_000,
  });
  let peakKiB = 0;
  const sampler = setInterval(() => {
    void readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((status) => {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm) peakKiB = Math.max(peakKiB, Number(hwm[1]));
      })
      .catch(() => undefined);
  }, 20);
  const result = await child;
  clearInterval(sampler);
  return {
    exitCode: result.exitCode ?? -1,
    wallMs: performance.now() - began,
    peakRssMiB: Math.round(peakKiB / 1024),
    said: String(result.stderr).split('\n').slice(0, 2).join(' ').slice(0, 160),
  };
}

/** The rows of the size check's table for manifests of `mb` megabytes, measured with the kguard at `kguard`. */
export async function sizeCheckBench(kguard: string, mb: number): Promise<string[]> {
  const rows = ['| shape | exit | wall | peak RSS | first words |', '| --- | --- | --- | --- | --- |'];
  const dir = await mkdtemp(join(tmpdir(), 'kguard-bench-size-'));
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, KUBECONFIG);
    for (const [shape, make] of Object.entries(shapes(mb * 1024 * 1024))) {
      const file = join(dir, 'big.yaml');
      await writeFile(file, make());
      const run = await measure(kguard, file, kubeconfig);
      rows.push(
        `| ${shape} | ${run.exitCode} | ${(run.wallMs / 1000).toFixed(1)} s | ${run.peakRssMiB} MiB | ${run.said} |`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values: flags } = parseArgs({ options: { kguard: { type: 'string' }, mb: { type: 'string' } } });
  const kguard = flags.kguard ?? fileURLToPath(new URL('../../../bin/kguard', import.meta.url));
  const mb = Number(flags.mb ?? 50);
  console.log(`kguard: ${kguard}; manifests of ${mb} MiB`);
  for (const row of await sizeCheckBench(kguard, mb)) console.log(row);
}
