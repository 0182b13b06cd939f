// A `-f URL` is downloaded once, with a deadline and a size limit (src/manifests/download.ts): what
// it says when it cannot, against real local servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { download } from '../../src/manifests/download.js';
import { freePort } from '../free-port.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/web.yaml`;
}

describe('download', () => {
  it('says which address refused the connection, and that nothing was applied', async () => {
    const url = `http://127.0.0.1:${await freePort()}/web.yaml`;
    const failed = download(url, { deadlineMs: 5_000, maxBytes: 1024 }, {});
    await expect(failed).rejects.toThrow(
      `-f ${url}: could not download the manifests (connection refused: connect ECONNREFUSED ${new URL(url).host}). Check the URL; nothing was applied.`,
    );
  });

  it('says its deadline when the server never ends the answer', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200);
      response.write('kind: ConfigMap\n');
    });
    await expect(download(url, { deadlineMs: 300, maxBytes: 1024 }, {})).rejects.toThrow(
      '(no complete answer within 0.3s)',
    );
  });

  it('stops reading at its size limit, and returns the bytes of an answer within it', async () => {
    const url = await serve((_request, response) => response.end('x'.repeat(2048)));
    await expect(download(url, { deadlineMs: 5_000, maxBytes: 1024 }, {})).rejects.toThrow('(larger than 1024 bytes)');
    expect(Buffer.from(await download(url, { deadlineMs: 5_000, maxBytes: 4096 }, {})).toString()).toBe(
      'x'.repeat(2048),
    );
  });
});
