import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { Clock } from '#src/platform/common/clock.js';
import type { LedgerCheckpoint } from './ledger-tree.entity.js';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { LedgerTreeService } from './ledger-tree.service.js';
import {
  checkpointText,
  NoteFormatError,
  parseCheckpoint,
  parseNote,
  parseSigner,
  parseVerifier,
  signNote,
  verifyCosignature,
  verifyNote,
  type NoteSigner,
  type NoteVerifier,
} from '#src/platform/crypto/signed-note.js';

/** A checkpoint as served: its tree size, root and the signed note with every cosignature kept. */
export interface SignedCheckpoint {
  treeSize: number;
  /** 32 bytes. */
  root: Buffer;
  /** The C2SP signed note: checkpoint text, blank line, the log's signature, then witness cosignatures. */
  note: string;
  /** Names of the witnesses whose cosignatures it carries. */
  witnesses: string[];
}

/** Texts of the checkpoint errors. */
export const CheckpointMessages = {
  notWitnessed: (quorum: number) => `No checkpoint carries the ${quorum} witness cosignatures required yet`,
  unknownCheckpoint: (size: number) => `This log signed no checkpoint of tree size ${size}`,
  otherCheckpoint: (size: number) => `The cosigned text is not the checkpoint this log signed at tree size ${size}`,
  noCosignature: 'The note carries no valid cosignature of a witness this log accepts (LEDGER_WITNESS_KEYS)',
  notANote: (reason: string) => `Not a cosigned checkpoint: ${reason}`,
} as const;

/**
 * Signed checkpoints of the ledger's Merkle tree (C2SP tlog-checkpoint in a signed note, Ed25519)
 * and the witness cosignatures on them (C2SP tlog-cosignature). A checkpoint is signed for each
 * tree size someone asks for, at most once per size (instances race to store the same bytes:
 * Ed25519 signatures are deterministic); with `LEDGER_WITNESS_QUORUM` N, only a checkpoint with N
 * cosignatures of `LEDGER_WITNESS_KEYS` is published.
 */
@Injectable()
export class CheckpointService {
  private cachedSigner: NoteSigner | undefined;
  /** The accepted witnesses. */
  readonly witnesses: NoteVerifier[];
  readonly quorum: number;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tree: LedgerTreeService,
    private readonly checkpoints: LedgerTreeRepository,
    private readonly clock: Clock,
  ) {
    this.witnesses = config.ledgerWitnessKeys.map(parseVerifier);
    this.quorum = config.ledgerWitnessQuorum;
  }

  private signer(): NoteSigner {
    if (!this.config.ledgerSigningKey) throw new Error('no ledger signing key configured (prepareDataDir was not run)');
    this.cachedSigner ??= parseSigner(this.config.ledgerSigningKey);
    return this.cachedSigner;
  }

  /** The log's verifier key, `<origin>+<id>+<key>`: what anyone checks checkpoints with. */
  verifierKey(): string {
    return this.signer().text;
  }

  /** The log's public key as a verifier. */
  verifier(): NoteVerifier {
    return parseVerifier(this.signer().text);
  }

  /**
   * The checkpoint of the current tree, signed now when the tree grew since the last one: what
   * witnesses cosign. Carries the cosignatures it already has.
   */
  async latest(): Promise<SignedCheckpoint> {
    const size = await this.tree.size();
    const newest = await this.checkpoints.newestCheckpoint();
    if (newest?.treeSize === size) return this.served(newest);
    const root = await this.tree.root(size);
    const signer = this.signer();
    await this.checkpoints.addCheckpoint({
      treeSize: size,
      rootHash: root.toString('hex'),
      note: signNote(checkpointText({ origin: signer.name, size, root }), signer),
      createdAt: this.clock.now(),
    });
    return this.served((await this.checkpoints.checkpoint(size))!);
  }

  /**
   * The published checkpoint: the latest one, or with a witness quorum the newest carrying that
   * many cosignatures of accepted witnesses.
   * @throws NotFoundException when a quorum is required and no checkpoint has it yet.
   */
  async published(): Promise<SignedCheckpoint> {
    if (this.quorum === 0) return this.latest();
    const witnessed = await this.checkpoints.newestWitnessed(
      this.witnesses.map((w) => w.text),
      this.quorum,
    );
    if (!witnessed) throw new NotFoundException(CheckpointMessages.notWitnessed(this.quorum));
    return this.served(witnessed);
  }

  /** The stored checkpoint of a tree size, with its cosignatures; `null` when none was signed. */
  async ofSize(size: number): Promise<SignedCheckpoint | null> {
    const stored = await this.checkpoints.checkpoint(size);
    return stored ? this.served(stored) : null;
  }

  /**
   * Keeps the cosignatures a witness sent for a checkpoint this log signed: each signature line of
   * an accepted witness that verifies over the checkpoint text.
   * @param cosigned the checkpoint note with the witness's signature line(s); the log's own line may be there or not.
   * @throws BadRequestException when it is not a note or carries no valid cosignature of an accepted witness.
   * @throws NotFoundException when this log signed no checkpoint of its tree size.
   * @throws ConflictException when its text is not the checkpoint this log signed at that size.
   */
  async addCosignatures(cosigned: string): Promise<SignedCheckpoint> {
    let note;
    let size;
    try {
      note = parseNote(cosigned);
      size = parseCheckpoint(note.text).size;
    } catch (error) {
      if (error instanceof NoteFormatError) throw new BadRequestException(CheckpointMessages.notANote(error.message));
      throw error;
    }
    const stored = await this.checkpoints.checkpoint(size);
    if (!stored) throw new NotFoundException(CheckpointMessages.unknownCheckpoint(size));
    if (parseNote(stored.note).text !== note.text) throw new ConflictException(CheckpointMessages.otherCheckpoint(size));
    let accepted = 0;
    for (const witness of this.witnesses) {
      if (verifyCosignature(note, witness) === null) continue;
      const line = note.signatures.find((s) => s.name === witness.name && s.keyId.equals(witness.keyId))!.line;
      await this.checkpoints.putCosignature({ treeSize: size, witness: witness.text, line, createdAt: this.clock.now() });
      accepted++;
    }
    if (accepted === 0) throw new BadRequestException(CheckpointMessages.noCosignature);
    return this.served(stored);
  }

  /** The tree sizes of the stored checkpoints, smallest first. */
  sizes(): Promise<number[]> {
    return this.checkpoints.checkpointSizes();
  }

  /**
   * Checks every stored checkpoint against the log's key and `rootAt` (the root recomputed from
   * the entries, `null` beyond them), and every kept cosignature against its witness's key.
   * @returns counts, and the first checkpoint that does not hold (smallest tree size first).
   */
  async check(rootAt: (size: number) => Buffer | null, entries: number): Promise<CheckpointCheck> {
    const verifier = this.verifier();
    let checkpoints = 0;
    let cosignatures = 0;
    let after = 0;
    for (;;) {
      const page = await this.checkpoints.checkpointsAfter(after, 500);
      for (const stored of page) {
        const size = stored.treeSize;
        const fail = (reason: string): CheckpointCheck => ({ checkpoints, cosignatures, firstBreak: { seq: size, reason } });
        let note;
        try {
          note = parseNote(stored.note);
        } catch {
          return fail(`checkpoint of tree size ${size} is not a signed note`);
        }
        if (!verifyNote(note, verifier))
          return fail(`checkpoint of tree size ${size} does not carry a valid signature of ${verifier.name}`);
        const body = parseCheckpoint(note.text);
        if (body.size !== size || body.root.toString('hex') !== stored.rootHash) {
          return fail(`checkpoint of tree size ${size} does not match its stored size and root`);
        }
        if (size > entries) {
          return fail(
            `checkpoint of tree size ${size} is beyond the ledger's ${entries} entries: entries ${entries + 1} to ${size} are missing`,
          );
        }
        if (!rootAt(size)!.equals(body.root)) {
          return fail(`checkpoint of tree size ${size} does not match the entries: the history up to entry ${size} was rewritten`);
        }
        checkpoints++;
        for (const cosignature of await this.checkpoints.cosignatures(size)) {
          let witness;
          try {
            witness = parseVerifier(cosignature.witness);
          } catch {
            return fail(`a cosignature of the checkpoint of tree size ${size} names no witness key`);
          }
          if (verifyCosignature({ text: note.text, signatures: parseNote(`x\n\n${cosignature.line}\n`).signatures }, witness) === null) {
            return fail(`cosignature of ${witness.name} on the checkpoint of tree size ${size} does not verify`);
          }
          cosignatures++;
        }
        after = size;
      }
      if (page.length < 500) return { checkpoints, cosignatures };
    }
  }

  private async served(stored: LedgerCheckpoint): Promise<SignedCheckpoint> {
    const cosignatures = await this.checkpoints.cosignatures(stored.treeSize);
    const lines = cosignatures.map((c) => c.line);
    return {
      treeSize: stored.treeSize,
      root: Buffer.from(stored.rootHash, 'hex'),
      note: lines.length ? `${stored.note}${lines.join('\n')}\n` : stored.note,
      witnesses: cosignatures.map((c) => c.witness.split('+')[0]),
    };
  }
}

/** What {@link CheckpointService.check} found. */
export interface CheckpointCheck {
  checkpoints: number;
  cosignatures: number;
  /** `seq` is the checkpoint's tree size. */
  firstBreak?: { seq: number; reason: string };
}
