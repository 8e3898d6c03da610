import { Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Clock } from '#src/platform/common/clock.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';

/** How long a download link works, seconds: a day, as a Mender server's links (a slow download may resume with it). */
export const DOWNLOAD_LINK_SECONDS = 86_400;

/** What the links' HMAC key is derived from the JWT secret with: a link is no token of any kind. */
const LINK_KEY_LABEL = 'firmledger download link';

/** A signed link's query values. */
export interface LinkSignature {
  /** Epoch seconds after which the link no longer works. */
  expires: number;
  /** base64url HMAC-SHA256 of `<path>\n<expires>`. */
  signature: string;
}

/**
 * Expiring, signed download links (docs/decisions.md §13): a device whose client downloads
 * without a credential (a Mender client fetches `artifact.source.uri` as a pre-signed URL) is
 * given a link whose path names what to send and to whom, signed with a key derived from the JWT
 * secret together with its expiry. Nothing is stored: any instance sharing the secret checks it.
 */
@Injectable()
export class DownloadLinks {
  private readonly key: Buffer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.key = createHmac('sha256', config.jwtSecret).update(LINK_KEY_LABEL).digest();
  }

  /** Signs `path` (the route's path, without scheme, host or query) for {@link DOWNLOAD_LINK_SECONDS} from now. */
  sign(path: string): LinkSignature {
    const expires = Math.floor(this.clock.now() / 1000) + DOWNLOAD_LINK_SECONDS;
    return { expires, signature: this.mac(path, expires) };
  }

  /**
   * Whether `signature` signs `path` with `expires` (decimal epoch seconds, as the query gave them)
   * and the link has not expired.
   */
  verify(path: string, expires: string | undefined, signature: string | undefined): boolean {
    if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return false;
    const seconds = Number(expires);
    if (seconds * 1000 < this.clock.now()) return false;
    const expected = Buffer.from(this.mac(path, seconds), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('base64url');
  }
}
