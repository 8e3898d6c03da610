import { createPrivateKey, sign } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request, type Answer } from './harness.js';
import type { DeviceKeyPair } from './mender-client.js';

/**
 * The Mender device API as the 3.4 client speaks it, over plain HTTP (docs/decisions.md §13): the
 * authentication request's bytes as Go's `json.Encoder` writes them (`id_data`, `tenant_token`,
 * `pubkey`, a trailing line feed) signed with the device key, and bodies sent chunked, as the
 * client's local proxy forwards them.
 */

/** What a device authenticates with. */
export interface MenderIdentity {
  idData: Record<string, string | string[]>;
  key: DeviceKeyPair;
  tenantToken: string;
}

/** The authentication request's body, byte for byte as the client writes it. */
export function authBody(identity: MenderIdentity): Buffer {
  return Buffer.from(
    `${JSON.stringify({ id_data: JSON.stringify(identity.idData), tenant_token: identity.tenantToken, pubkey: identity.key.publicKey })}\n`,
  );
}

/** `X-MEN-Signature` of `bytes`: RSA PKCS #1 v1.5 or ECDSA (DER) over SHA-256, Ed25519 over the bytes; base64. */
export function menderSignature(privateKey: string, bytes: Buffer): string {
  const key = createPrivateKey(privateKey);
  const signature =
    key.asymmetricKeyType === 'ed25519'
      ? sign(null, bytes, key)
      : sign('sha256', bytes, key.asymmetricKeyType === 'ec' ? { key, dsaEncoding: 'der' } : key);
  return signature.toString('base64');
}

/**
 * Sends an authentication request to the Mender component at `base`, signed (unless `signature`
 * says otherwise) over `body` (the client's bytes unless given).
 */
export function authenticate(
  base: string,
  identity: MenderIdentity,
  options: { body?: Buffer; signature?: string | null } = {},
): Promise<Answer> {
  const body = options.body ?? authBody(identity);
  const signature = options.signature === undefined ? menderSignature(identity.key.privateKey, body) : options.signature;
  return request('POST', `${base}/api/devices/v1/authentication/auth_requests`, {
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${identity.tenantToken}`.trim(),
      ...(signature === null ? {} : { 'x-men-signature': signature }),
    },
  });
}

/** The device token of an accepted identity. @throws when it is not accepted. */
export async function menderToken(base: string, identity: MenderIdentity): Promise<string> {
  const answer = await authenticate(base, identity);
  if (answer.status !== 200) throw new Error(`authentication failed: ${answer.status} ${answer.text}`);
  return answer.text;
}

/** What a chunked request got back. */
export interface ChunkedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A request whose JSON body goes out with `Transfer-Encoding: chunked` and no `Content-Length`, in
 * pieces of `pieceSize` bytes: what the client's local proxy forwards for every authorized call.
 */
export function chunkedRequest(method: string, url: string, token: string, body: string, pieceSize = 7): Promise<ChunkedAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += pieceSize) req.write(body.slice(i, i + pieceSize));
    req.end();
  });
}
