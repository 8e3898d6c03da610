import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { URL_VARIABLES, type ComponentName } from '#src/platform/config/components.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import type { FingerprintsResponse } from '#src/protocols/asvin/tools/dto/fingerprints.dto.js';

/** The fingerprint keys the ESP8266 SDK reads, and the component each names. */
const PINNED: Readonly<Record<keyof FingerprintsResponse, ComponentName>> = { oauth: 'auth', vc: 'vc', bc: 'bc', ipfs: 'ipfs' };

/**
 * The tools service: what devices need before they speak TLS to the other components. The ESP8266
 * SDK fetches the fingerprints (without checking the tools certificate) and pins each one with
 * BearSSL's `setFingerprint`, which takes hex pairs separated by colons or spaces, in any case.
 */
@Injectable()
export class ToolsService implements OnApplicationBootstrap {
  private readonly fingerprints: FingerprintsResponse;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.fingerprints = fingerprintsOf(config);
  }

  /** The fingerprints, computed at start from the certificates each component presents. */
  current(): FingerprintsResponse {
    return this.fingerprints;
  }

  /** Says once at start which components have no known certificate: devices that pin cannot reach them. */
  onApplicationBootstrap(): void {
    const missing = (Object.keys(PINNED) as (keyof FingerprintsResponse)[]).filter((key) => this.fingerprints[key] === '');
    if (missing.length === 0) return;
    const names = missing.map((key) => URL_VARIABLES[PINNED[key]]).join(', ');
    new Logger('Tools').log(
      `no certificate for ${names}: GET /fingerprints answers "" for ${missing.join(', ')}, and ESP8266 devices, which pin ` +
        'every fingerprint, cannot connect there (serve https:// or name the proxy’s certificate, see README)',
    );
  }
}

/** `{oauth, vc, bc, ipfs}` from the loaded certificates; `""` for a component without one. */
export function fingerprintsOf(config: Pick<AppConfig, 'certificates'>): FingerprintsResponse {
  const of = (component: ComponentName) => config.certificates[component]?.sha1Fingerprint ?? '';
  return { oauth: of(PINNED.oauth), vc: of(PINNED.vc), bc: of(PINNED.bc), ipfs: of(PINNED.ipfs) };
}
