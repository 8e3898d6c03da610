import { Inject, Injectable, Optional, PayloadTooLargeException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { beforeCommit, lockAcrossInstances, LockKey } from '#src/platform/database/unit-of-work.js';
import { actorLabel, DEFAULT_ACTOR, type Actor } from './ledger-actor.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import { LedgerRepository } from './ledger.repository.js';
import { canonicalJson, checkLink, GENESIS_HASH, ledgerHash, ledgerLeafText, type ChainBreak } from './ledger-hash.js';
import { CheckpointService } from './checkpoint.service.js';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { LedgerTreeService } from './ledger-tree.service.js';
import { CompactTree, leafHash, nodeKey, type TreeNode } from './merkle.js';
import { MAX_ENTRY_BYTES } from './tiles.js';

/** A state change to record (docs/decisions.md §7). */
export interface LedgerEvent {
  tenantId: number;
  /** e.g. `device.registered`, `firmware.published`, `rollout.started`. */
  type: string;
  /** e.g. `device:AC:67:B2:01:02:03`, `firmware:7`, `rollout:3`. */
  subject: string;
  /** The new state of the subject; never a secret. */
  state: Record<string, unknown>;
  /** Who made the change; absent for what devices change themselves (the CLI records its account). */
  actor?: Actor;
}

/** Result of {@link LedgerService.verify}. */
export interface VerifyResult {
  ok: boolean;
  /** Entries checked. */
  entries: number;
  /** Hash of the last entry checked. */
  head: string;
  /** Signed checkpoints checked (signature, root against the entries). */
  checkpoints: number;
  /** Witness cosignatures checked. */
  cosignatures: number;
  /**
   * The first thing that does not match, when `ok` is false: an entry (its `seq`), a tree node
   * (the entry that completes it) or a checkpoint (its tree size as `seq`).
   */
  firstBreak?: ChainBreak;
}

/** A ledger entry as operators read it (docs/decisions.md §7, §9). */
export interface LedgerEntryView {
  seq: number;
  tenantId: number;
  type: string;
  subject: string;
  /** The recorded state, parsed from its canonical JSON (the stored text when it is not JSON, e.g. tampered). */
  payload: unknown;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** Who made the change (`user:alice`, `token:3:ci`, `cli:root`), or `null`. */
  actor: string | null;
  prevHash: string;
  hash: string;
}

/** Order of a page of entries: by sequence number, oldest (`asc`) or newest (`desc`) first. */
export type LedgerOrder = 'asc' | 'desc';

const VERIFY_PAGE = 1000;

/** 413 text of a change whose ledger entry would not fit an entry bundle (docs/transparency.md). */
export const entryTooLarge = (bytes: number): string =>
  `This change's ledger entry would be ${bytes} bytes; an entry holds at most ${MAX_ENTRY_BYTES} (C2SP tlog-tiles entry bundles): change fewer items at once`;

/** Subjects of ledger entries. */
export const Subject = {
  device: (mac: string) => `device:${mac}`,
  firmware: (id: number) => `firmware:${id}`,
  rollout: (id: number) => `rollout:${id}`,
  group: (id: number) => `group:${id}`,
  deviceKey: (id: number) => `device-key:${id}`,
  tenant: (id: number) => `tenant:${id}`,
};

/** The append-only, hash-chained log of every state change (docs/decisions.md §7). */
@Injectable()
export class LedgerService {
  constructor(
    private readonly entries: LedgerRepository,
    private readonly tree: LedgerTreeService,
    private readonly treeNodes: LedgerTreeRepository,
    private readonly checkpoints: CheckpointService,
    private readonly clock: Clock,
    @Optional() @Inject(DEFAULT_ACTOR) private readonly defaultActor?: Actor,
  ) {}

  /** Events held back per transaction ({@link hold}), appended in order before its next entry or its commit. */
  private readonly held = new WeakMap<EntityManager, LedgerEvent[]>();

  /**
   * Appends `event` like {@link append}, but at the end of the caller's `UnitOfWork` transaction,
   * just before its commit (or before the next entry it appends, so the entries keep the order of
   * their changes). The ledger lock is held from an append until the commit and every appender of
   * every instance waits for it: a transaction with more to do after its change (a success report
   * moves the device's state and settles its rollout) holds its entry back so the lock is held
   * only for the append itself. Appends at once when `manager` is not a unit-of-work transaction's.
   * @throws PayloadTooLargeException as {@link append}, from the transaction's end.
   */
  async hold(manager: EntityManager, event: LedgerEvent): Promise<void> {
    const held = this.held.get(manager);
    if (held) {
      held.push(event);
      return;
    }
    if (!beforeCommit(manager, () => this.appendHeld(manager))) {
      await this.append(manager, event);
      return;
    }
    this.held.set(manager, [event]);
  }

  /** Appends the events {@link hold} kept for the transaction of `manager`, in order. */
  private async appendHeld(manager: EntityManager): Promise<void> {
    const held = this.held.get(manager);
    if (!held) return;
    this.held.delete(manager);
    await this.appendAll(manager, held);
  }

  /**
   * Appends an entry inside the caller's transaction (a `UnitOfWork` one), so it commits
   * with the state change it records. One appender at a time across every instance: SQLite has
   * one writer; on PostgreSQL the ledger lock is taken before the head is read and held until
   * the caller commits, so the next appender reads this entry as its predecessor. The event's
   * actor (or the process's default actor, the CLI's account) is recorded and hashed with it.
   * Events the transaction {@link hold held} back are appended first.
   * @throws PayloadTooLargeException when the entry's leaf text would exceed 65,535 bytes, the
   *   most a C2SP tlog-tiles entry bundle holds (the caller's transaction then rolls back).
   */
  async append(manager: EntityManager, event: LedgerEvent): Promise<LedgerEntry> {
    const held = this.held.get(manager) ?? [];
    this.held.delete(manager);
    const entries = await this.appendAll(manager, [...held, event]);
    return entries[entries.length - 1];
  }

  /**
   * Appends `events` in order, with the ledger lock: the head and the tree's right edge in one
   * statement, the entries and the subtrees they complete in one more (two on SQLite), as few
   * round trips as possible while every other appender waits. A tree whose right edge is not
   * stored whole (altered by hand) is appended to entry by entry ({@link LedgerTreeService.append}).
   */
  private async appendAll(manager: EntityManager, events: readonly LedgerEvent[]): Promise<LedgerEntry[]> {
    await lockAcrossInstances(manager, LockKey.ledger);
    const { head, edge } = await this.treeNodes.headAndEdge(manager);
    let tree: CompactTree;
    try {
      tree = CompactTree.fromEdge(head?.seq ?? 0, edge);
    } catch {
      const appended: LedgerEntry[] = [];
      for (const event of events) appended.push(await this.appendOne(manager, event));
      return appended;
    }
    let prevHash = head?.hash ?? GENESIS_HASH;
    const entries: LedgerEntry[] = [];
    const nodes: TreeNode[] = [];
    for (const event of events) {
      const fields = this.fieldsOf(event, tree.size + 1);
      const leafText = checkedLeafText(prevHash, fields);
      const entry = { ...fields, prevHash, hash: ledgerHash(prevHash, fields) };
      entries.push(entry);
      nodes.push(...tree.push(leafHash(leafText)));
      prevHash = entry.hash;
    }
    await this.entries.insertWithNodes(manager, entries, nodes);
    return entries;
  }

  /** One entry after the stored head, its subtrees read one by one ({@link LedgerTreeService.append}); the ledger lock held. */
  private async appendOne(manager: EntityManager, event: LedgerEvent): Promise<LedgerEntry> {
    const last = await this.entries.head(manager);
    const prevHash = last?.hash ?? GENESIS_HASH;
    const fields = this.fieldsOf(event, (last?.seq ?? 0) + 1);
    const leafText = checkedLeafText(prevHash, fields);
    const entry = await this.entries.insert(manager, { ...fields, prevHash, hash: ledgerHash(prevHash, fields) });
    await this.tree.append(manager, entry.seq, leafText);
    return entry;
  }

  /** The hashed fields of entry `seq` recording `event`, now, by its actor or the process's default actor. */
  private fieldsOf(event: LedgerEvent, seq: number): Omit<LedgerEntry, 'prevHash' | 'hash'> {
    const actor = event.actor ?? this.defaultActor;
    return {
      seq,
      tenantId: event.tenantId,
      type: event.type,
      subject: event.subject,
      payload: canonicalJson(event.state),
      createdAt: this.clock.now(),
      actor: actor ? actorLabel(actor) : null,
    };
  }

  /**
   * Latest state of a subject as the ledger defines it: its newest entry, of one of `types` when
   * given (a subject's entries may record different things: a device's record, its labels…).
   * @returns the newest entry's type and parsed payload, or `null` when the subject has none.
   */
  async current(
    tenantId: number,
    subject: string,
    types?: readonly string[],
  ): Promise<{ type: string; state: Record<string, unknown> } | null> {
    const entry = await this.entries.newestOfSubject(tenantId, subject, types);
    return entry ? { type: entry.type, state: JSON.parse(entry.payload) as Record<string, unknown> } : null;
  }

  /**
   * One page of entries by sequence number (oldest first unless `order` is `desc`), of one tenant
   * when `tenantId` is given, and how many there are.
   */
  async page(tenantId: number | undefined, slice: Slice, order: LedgerOrder = 'asc'): Promise<Counted<LedgerEntryView>> {
    const [entries, total] = await this.entries.page(tenantId, slice.offset, slice.limit, order === 'desc' ? 'DESC' : 'ASC');
    return {
      items: entries.map((entry) => ({
        seq: entry.seq,
        tenantId: entry.tenantId,
        type: entry.type,
        subject: entry.subject,
        payload: parsePayload(entry.payload),
        createdAt: new Date(entry.createdAt).toISOString(),
        actor: entry.actor,
        prevHash: entry.prevHash,
        hash: entry.hash,
      })),
      total,
    };
  }

  /**
   * Recomputes the whole chain in order, and with it the Merkle tree: each entry's stored leaf and
   * every stored subtree it completes must match; then every signed checkpoint must carry the
   * log's signature and the root of the entries up to its size, and every kept witness
   * cosignature must verify. Names the first thing that does not match.
   */
  async verify(): Promise<VerifyResult> {
    const sizes = new Set(await this.checkpoints.sizes());
    const roots = new Map<number, Buffer>();
    const compact = new CompactTree();
    let previous = null as { seq: number; hash: string } | null;
    let entries = 0;
    const broken = (firstBreak: ChainBreak): VerifyResult => ({
      ok: false,
      entries,
      head: previous?.hash ?? GENESIS_HASH,
      checkpoints: 0,
      cosignatures: 0,
      firstBreak,
    });
    for (;;) {
      const page = await this.entries.after(previous?.seq ?? 0, VERIFY_PAGE);
      const completed = page.map((entry) => ({ entry, nodes: [] as ReturnType<CompactTree['push']> }));
      for (const item of completed) {
        const firstBreak = checkLink(previous, item.entry);
        if (firstBreak) return broken(firstBreak);
        item.nodes = compact.push(leafHash(ledgerLeafText(item.entry.prevHash, item.entry)));
        if (sizes.has(compact.size)) roots.set(compact.size, compact.root());
        previous = item.entry;
        entries++;
      }
      const stored = await this.treeNodes.nodes(completed.flatMap((item) => item.nodes));
      for (const { entry, nodes } of completed) {
        for (const node of nodes) {
          const hash = stored.get(nodeKey(node.level, node.index));
          if (hash?.equals(node.hash)) continue;
          const what =
            node.level === 0
              ? 'its tree leaf'
              : `tree node ${node.level}/${node.index} (entries ${node.index * 2 ** node.level + 1} to ${entry.seq})`;
          entries = entry.seq - 1;
          return broken({ seq: entry.seq, reason: `${what} ${hash ? 'does not match the entries' : 'is missing'}` });
        }
      }
      if (page.length < VERIFY_PAGE) break;
    }
    const head = previous?.hash ?? GENESIS_HASH;
    const checked = await this.checkpoints.check((size) => roots.get(size) ?? null, entries);
    return { ok: !checked.firstBreak, entries, head, ...checked };
  }
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The leaf text of an entry (what its hash covers). @throws PayloadTooLargeException when it exceeds {@link MAX_ENTRY_BYTES}. */
function checkedLeafText(prevHash: string, fields: Omit<LedgerEntry, 'prevHash' | 'hash'>): string {
  const leafText = ledgerLeafText(prevHash, fields);
  const bytes = Buffer.byteLength(leafText, 'utf8');
  if (bytes > MAX_ENTRY_BYTES) throw new PayloadTooLargeException(entryTooLarge(bytes));
  return leafText;
}
