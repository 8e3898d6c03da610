import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type BaseUrls, type TestApp } from './harness.js';
import { writeTestCertificate, type TestCertificate } from './test-certificates.js';

/** A server as a site facing field devices runs it: every device-facing component on https://. */
export interface FieldServer {
  app: TestApp;
  /** The certificate of every component but the IPFS one, and the IPFS component's own. */
  certificates: { shared: TestCertificate; ipfs: TestCertificate };
  close(): Promise<void>;
}

/**
 * Starts the application with its device-facing components on https:// base URLs, each listener
 * serving TLS itself: one certificate for all (TLS_CERT_FILE) but the IPFS component, which has
 * its own (IPFS_TLS_CERT_FILE), so a fingerprint pinned to the wrong component fails.
 * Certificates are generated for this run. The harness's `login` and `request` (fetch) check
 * certificates and refuse these: speak to the server as devices do, with raw-http's `exchange`.
 * @param urls base URLs to use instead of the defaults (`https://127.0.0.1:{portN}`).
 */
export async function startFieldServer(urls: BaseUrls = {}): Promise<FieldServer> {
  const dir = await mkdtemp(join(tmpdir(), 'firmledger-field-'));
  try {
    const shared = await writeTestCertificate(dir, 'shared');
    const ipfs = await writeTestCertificate(dir, 'ipfs');
    const app = await startTestApp(
      { TLS_CERT_FILE: shared.certFile, TLS_KEY_FILE: shared.keyFile, IPFS_TLS_CERT_FILE: ipfs.certFile, IPFS_TLS_KEY_FILE: ipfs.keyFile },
      {
        AUTH_URL: 'https://127.0.0.1:{port0}',
        VC_URL: 'https://127.0.0.1:{port1}',
        BC_URL: 'https://127.0.0.1:{port2}',
        IPFS_URL: 'https://127.0.0.1:{port4}',
        TOOLS_URL: 'https://127.0.0.1:{port5}',
        ...urls,
      },
    );
    return {
      app,
      certificates: { shared, ipfs },
      close: async () => {
        try {
          await app.close();
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
