// A real S3-compatible server for the tests: s3rver (an npm package, files in a temporary directory)
// on a free port, with a bucket, behind a small recording proxy that notes each request's method and
// query (so that a test can see a multipart upload happen). Never a mock of the SDK.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

/** s3rver accepts these keys (its defaults). */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalS3 {
  /** The proxy's URL: what STORAGE_URL's `endpoint` names. */
  endpoint: string;
  bucket: string;
  /** A client of its own, to look at the bucket without the driver under test. */
  client: S3Client;
  /** `METHOD path?query` of every request since the last clear. */
  requests: string[];
  /** STORAGE_URL for a prefix of the bucket. */
  storageUrl(prefix: string, extra?: string): string;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = 'folio-media'): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = (await server.run()) as AddressInfo;
  const requests: string[] = [];
  const proxy = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const upstream = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    requests,
    storageUrl: (prefix, extra = '') =>
      `s3://${bucket}/${prefix}?region=us-east-1&endpoint=${encodeURIComponent(endpoint)}&force_path_style=1${extra}`,
    async close() {
      client.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
