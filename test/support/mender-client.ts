import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { create as createTar, extract as extractTar } from 'tar';

/**
 * Debian's real Mender client (`mender-client` 3.4) and artifact tool (`mender-artifact`) for the
 * Mender specs (docs/mender-devices.md).
 *
 * The 3.4 client reads its identity script, inventory scripts and update modules from fixed
 * system directories (`/usr/share/mender/{identity,inventory,modules}`) and `/etc/mender`
 * (`mender.conf`, `artifact_info`): each client runs as root in a private mount namespace
 * (`unshare --mount --propagation private`) with its own work directory's `etc-mender`, `share`
 * and `opt` bound over `/etc/mender`, `/usr/share/mender` and `/opt` (where the test artifacts
 * install), its data under `--data <work>/data`, DBus off, polling every second. The machine is
 * never changed: the mounts end with the process. Without root, a user namespace maps the caller
 * to root (`--user --map-root-user`). `unshare` without `--fork` execs the client, so the child's
 * pid is the client's.
 */

/** The device key types a client may authenticate with. */
export type DeviceKeyType = 'rsa' | 'ec' | 'ed25519';

/** A device key pair, PEM (PKCS #8 private key, SPKI public key). */
export interface DeviceKeyPair {
  privateKey: string;
  publicKey: string;
}

/** A fresh device key: RSA 2048 (the client's own default, RSA 3072, takes a second to make), ECDSA P-256 or Ed25519. */
export function deviceKeyPair(type: DeviceKeyType): DeviceKeyPair {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
        : generateKeyPairSync('ed25519');
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

/** How to start one client. */
export interface MenderClientOptions {
  /** A fresh directory of its own (made if absent). */
  workDir: string;
  /** `ServerURL`: the Mender component's base URL. */
  serverUrl: string;
  /** `TenantToken`: a device key of the tenant. */
  tenantToken: string;
  /** Its device type (`device_type` file). */
  deviceType: string;
  /** What its identity script prints, `key=value` lines (`mac` names the device). */
  identity: Record<string, string>;
  /** Its key (`Security.AuthPrivateKey`); without one the client generates RSA 3072 on its first start. */
  privateKey?: string;
  /** What its inventory script prints besides what the client adds (`artifact_name`, `device_type`, …). */
  inventory?: Record<string, string>;
  /** The artifact it runs before its first update (`/etc/mender/artifact_info`); `factory-image` by default. */
  artifactName?: string;
  /** Update modules to add beside Debian's, by name: shell scripts. */
  modules?: Record<string, string>;
  /** A PEM certificate the client trusts besides the system's (`ServerCertificate`): a test server's self-signed one. */
  serverCertificate?: string;
  /** Host file every output line of the client is appended to (the client logs at debug level). */
  logFile?: string;
}

/** A running client. */
export interface MenderClient {
  /** Its work directory. */
  readonly dir: string;
  /** The host path of what the client sees as `/opt/<path>`. */
  opt(path: string): string;
  /** Its output so far (its log, at debug level). */
  output(): string;
  /** Sends it a signal: `SIGUSR1` checks for an update now, `SIGUSR2` sends the inventory now. */
  signal(signal: NodeJS.Signals): void;
  /** Ends it: SIGTERM (it exits at once, keeping its state in its data directory), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** A binary the Mender specs need; CI installs them (`.ci/run`), so an absent one fails the spec rather than skipping it. */
function binary(name: string, pkg: string): string {
  for (const candidate of [`/usr/bin/${name}`, `/usr/local/bin/${name}`]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is required by the Mender specs and was not found: apt-get install ${pkg}`);
}

/** Starts `mender daemon` in its sandbox (see the module's description). */
export function startMenderClient(options: MenderClientOptions): MenderClient {
  const mender = binary('mender', 'mender-client');
  const dir = options.workDir;
  for (const sub of ['etc-mender', 'data', 'share/identity', 'share/inventory', 'share/modules/v3', 'opt', 'bin']) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  const config: Record<string, unknown> = {
    ServerURL: options.serverUrl,
    TenantToken: options.tenantToken,
    UpdatePollIntervalSeconds: 1,
    InventoryPollIntervalSeconds: 3600,
    RetryPollIntervalSeconds: 1,
    RetryPollCount: 1,
    ModuleTimeoutSeconds: 120,
    DBus: { Enabled: false },
  };
  if (options.privateKey) {
    writeFileSync(join(dir, 'etc-mender', 'device-key.pem'), options.privateKey, { mode: 0o600 });
    config['Security'] = { AuthPrivateKey: '/etc/mender/device-key.pem' };
  }
  if (options.serverCertificate) {
    writeFileSync(join(dir, 'etc-mender', 'server.crt'), options.serverCertificate);
    config['ServerCertificate'] = '/etc/mender/server.crt';
  }
  writeFileSync(join(dir, 'etc-mender', 'mender.conf'), JSON.stringify(config, null, 2));
  // Read for every module run, so it must keep existing after the first install.
  writeFileSync(join(dir, 'etc-mender', 'artifact_info'), `artifact_name=${options.artifactName ?? 'factory-image'}\n`);
  writeFileSync(join(dir, 'data', 'device_type'), `device_type=${options.deviceType}\n`);
  const script = (lines: Record<string, string>) =>
    `#!/bin/sh\n${Object.entries(lines)
      .map(([key, value]) => `echo '${key}=${value}'`)
      .join('\n')}\n`;
  writeFileSync(join(dir, 'share', 'identity', 'mender-device-identity'), script(options.identity), { mode: 0o755 });
  writeFileSync(join(dir, 'share', 'inventory', 'mender-inventory-test'), script(options.inventory ?? { hostname: 'mender-test' }), {
    mode: 0o755,
  });
  cpSync('/usr/share/mender/modules/v3', join(dir, 'share', 'modules', 'v3'), { recursive: true });
  for (const [name, text] of Object.entries(options.modules ?? {})) {
    writeFileSync(join(dir, 'share', 'modules', 'v3', name), text, { mode: 0o755 });
  }
  // A safety net: an `Automatic` reboot runs `reboot` from PATH; this one only kills the client.
  writeFileSync(join(dir, 'bin', 'reboot'), '#!/bin/sh\necho "fake reboot" >&2\nkill -9 "$PPID"\n', { mode: 0o755 });

  const inner = [
    'mount --bind "$SANDBOX/etc-mender" /etc/mender',
    'mount --bind "$SANDBOX/share" /usr/share/mender',
    'mount --bind "$SANDBOX/opt" /opt',
    'export PATH="$SANDBOX/bin:$PATH"',
    'exec "$@"',
  ].join(' && ');
  const namespace =
    process.getuid?.() === 0
      ? ['--mount', '--propagation', 'private']
      : ['--user', '--map-root-user', '--mount', '--propagation', 'private'];
  const args = [
    ...namespace,
    'sh',
    '-c',
    inner,
    'sh',
    mender,
    '--no-syslog',
    '--log-level',
    'debug',
    '--config',
    '/etc/mender/mender.conf',
    '--fallback-config',
    join(dir, 'data', 'mender.conf'),
    '--data',
    join(dir, 'data'),
    'daemon',
  ];
  const child: ChildProcess = spawn('unshare', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'], SANDBOX: dir, LANG: 'C' },
  });
  const chunks: string[] = [];
  const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : null;
  const read = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    chunks.push(text);
    log?.write(text);
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    dir,
    opt: (path) => join(dir, 'opt', path),
    output: () => chunks.join(''),
    signal(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async stop(graceMs = 5000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
    },
  };
}

/** What a test artifact is. */
export interface ArtifactSpec {
  /** Its artifact name (the firmware version). */
  name: string;
  /** The device types it installs on. */
  deviceTypes: string[];
  /**
   * `single-file` (Debian's module: writes the payload to `/opt/fw/<name>.txt`), or the name of
   * a module of the client's (given in {@link MenderClientOptions.modules}) that gets `payload.bin`.
   */
  type?: string;
  /** Sign it with this private key (PEM: PKCS #1 RSA or SEC1 EC, what mender-artifact takes). */
  signingKey?: string;
  /** Swap its payload after the manifest was written: the client finds an invalid checksum while it installs. */
  broken?: boolean;
}

/** A built artifact. */
export interface BuiltArtifact {
  file: string;
  bytes: Buffer;
  /** What the payload holds (for single-file: the text of `/opt/fw/<name>.txt`). */
  payload: Buffer;
}

/** Builds a Mender artifact (format 3) with `mender-artifact write module-image` in `dir`. */
export function buildArtifact(dir: string, spec: ArtifactSpec): BuiltArtifact {
  const tool = binary('mender-artifact', 'mender-artifact');
  const work = mkdtempSync(join(dir, `artifact-${spec.name}-`));
  try {
    const write = (name: string, payload: Buffer): string => {
      const file = join(work, `${name}.mender`);
      const files: string[] = [];
      if ((spec.type ?? 'single-file') === 'single-file') {
        writeFileSync(join(work, 'dest_dir'), '/opt/fw\n');
        writeFileSync(join(work, 'filename'), `${spec.name}.txt\n`);
        writeFileSync(join(work, 'permissions'), '644\n');
        writeFileSync(join(work, `${spec.name}.txt`), payload);
        files.push('dest_dir', 'filename', 'permissions', `${spec.name}.txt`);
      } else {
        writeFileSync(join(work, 'payload.bin'), payload);
        files.push('payload.bin');
      }
      const args = ['write', 'module-image', '-T', spec.type ?? 'single-file', '-n', spec.name, '-o', file];
      for (const type of spec.deviceTypes) args.push('-t', type);
      for (const name of files) args.push('-f', join(work, name));
      if (spec.signingKey) {
        writeFileSync(join(work, 'signing.pem'), spec.signingKey, { mode: 0o600 });
        args.push('-k', join(work, 'signing.pem'));
      }
      execFileSync(tool, args, { cwd: work, stdio: 'pipe' });
      return file;
    };
    // Text, 8 KiB or so: the single-file module writes it where the spec can read it back.
    const payload = Buffer.from(`${spec.name}\n${randomBytes(6000).toString('base64')}\n`);
    const file = write(spec.name, payload);
    if (spec.broken) {
      // The same artifact with another payload of the same name; its data member replaces the first one's.
      const other = write(`${spec.name}-other`, Buffer.concat([Buffer.from('TAMPERED\n'), payload.subarray(9)]));
      spliceData(file, other, work);
    }
    const out = join(dir, `${spec.name}.mender`);
    writeFileSync(out, readFileSync(file));
    return { file: out, bytes: readFileSync(out), payload };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Replaces `data/0000.tar.gz` of the artifact `file` with the one of `donor`, keeping its other members as they are. */
function spliceData(file: string, donor: string, work: string): void {
  const [mine, theirs] = [join(work, 'mine'), join(work, 'theirs')];
  mkdirSync(mine);
  mkdirSync(theirs);
  extractTar({ file, cwd: mine, sync: true });
  extractTar({ file: donor, cwd: theirs, sync: true });
  writeFileSync(join(mine, 'data', '0000.tar.gz'), readFileSync(join(theirs, 'data', '0000.tar.gz')));
  const members = [
    'version',
    'manifest',
    ...(existsSync(join(mine, 'manifest.sig')) ? ['manifest.sig'] : []),
    'header.tar.gz',
    'data/0000.tar.gz',
  ];
  createTar({ file, cwd: mine, sync: true, portable: true }, members);
}

/**
 * Polls `check` every `intervalMs` until it returns something other than `undefined`, `null` or
 * `false`, and answers that.
 * @throws Error naming `what` (and `describe()`'s text, when given) after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  describe?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${describe ? `\n${describe()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
