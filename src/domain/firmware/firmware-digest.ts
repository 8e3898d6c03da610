import { createHash } from 'node:crypto';
import { BlackHoleBlockstore } from 'blockstore-core/black-hole';
import { importFile, type ImporterOptions } from 'ipfs-unixfs-importer';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import { balanced } from 'ipfs-unixfs-importer/layout';
import { CID } from 'multiformats/cid';

/** Digests of a firmware binary (docs/decisions.md §7). */
export interface FirmwareDigests {
  /** Size, bytes. */
  size: number;
  /** Lowercase hex MD5. */
  md5: string;
  /** Lowercase hex SHA-1 (what hawkBit DDI clients check an artifact against). */
  sha1: string;
  /** Lowercase hex SHA-256. */
  sha256: string;
  /** CIDv0 (`Qm…`) that `ipfs add` with its defaults gives the same bytes. */
  cid: string;
}

/** Chunk size of kubo's default chunker (`size-262144`), bytes. */
const CHUNK_SIZE = 262_144;
/** Kubo's default `Import.UnixFSFileMaxLinks`: children per node of the balanced DAG. */
const MAX_CHILDREN_PER_NODE = 174;
/** Multicodec of dag-pb, the only codec a CIDv0 can carry. */
const DAG_PB = 0x70;
/** Multihash code of sha2-256, the only hash a CIDv0 can carry. */
const SHA2_256 = 0x12;

/**
 * Importer options that reproduce `ipfs add` with kubo's defaults (the `unixfs-v0-2015`
 * profile of IPIP-499, which kubo's own test/cli/cid_profiles_test.go checks is the default):
 * CIDv0, dag-pb/UnixFS leaves of type `file` (not `raw`: kubo's balanced builder wraps each
 * chunk in a UnixFS TFile node; `raw` leaf type is only for its trickle DAG), fixed-size
 * 256 KiB chunks, balanced layout with at most 174 links per node, links written before
 * data, and a single-chunk file reduced to its one node.
 * Spelt out rather than left to the library's defaults, which are CIDv1 with raw leaves.
 */
const KUBO_DEFAULT_IMPORT: ImporterOptions = {
  cidVersion: 0,
  rawLeaves: false,
  leafType: 'file',
  reduceSingleLeafToSelf: true,
  chunker: fixedSize({ chunkSize: CHUNK_SIZE }),
  layout: balanced({ maxChildrenPerNode: MAX_CHILDREN_PER_NODE }),
  fieldOrder: 'links-first',
  wrapWithDirectory: false,
};

/**
 * Computes size, MD5, SHA-1, SHA-256 and the `ipfs add` CIDv0 of a firmware binary in one pass
 * (docs/decisions.md §7). The source is streamed: each chunk updates both hashes as the UnixFS
 * importer pulls it, and the importer's blocks are discarded once hashed, so memory stays
 * flat whatever the size of the binary.
 * @param source the bytes, whole or as a stream of chunks (e.g. a `fs.ReadStream`).
 * @returns `size` in bytes, lowercase hex `md5`, `sha1` and `sha256`, and `cid` (`Qm…`).
 * @throws TypeError when the stream yields something other than a Uint8Array; any error
 *   the source throws is passed on; Error if the importer did not give a CIDv0 (cannot
 *   happen with the options above).
 */
export async function computeDigests(source: Uint8Array | AsyncIterable<Uint8Array>): Promise<FirmwareDigests> {
  const md5 = createHash('md5');
  const sha1 = createHash('sha1');
  const sha256 = createHash('sha256');
  let size = 0;

  async function* tee(): AsyncGenerator<Uint8Array> {
    const chunks: AsyncIterable<unknown> | Iterable<unknown> = source instanceof Uint8Array ? [source] : source;
    for await (const chunk of chunks) {
      if (!(chunk instanceof Uint8Array)) {
        throw new TypeError('firmware stream must yield Uint8Array chunks');
      }
      md5.update(chunk);
      sha1.update(chunk);
      sha256.update(chunk);
      size += chunk.byteLength;
      yield chunk;
    }
  }

  const root = await importFile({ content: tee() }, new BlackHoleBlockstore(), KUBO_DEFAULT_IMPORT);
  const cid = root.cid.toString();
  if (!isCidV0(cid)) throw new Error(`UnixFS importer gave ${cid}, not a CIDv0`);
  return { size, md5: md5.digest('hex'), sha1: sha1.digest('hex'), sha256: sha256.digest('hex'), cid };
}

/**
 * Whether text is a CIDv0 (docs/decisions.md §7): a base58btc sha2-256 multihash of a dag-pb
 * node, 46 characters starting with `Qm`, written exactly as multiformats' `CID.parse`
 * prints it back. Never throws.
 */
export function isCidV0(text: string): boolean {
  if (typeof text !== 'string' || text.length !== 46 || !text.startsWith('Qm')) return false;
  try {
    const cid = CID.parse(text);
    return (
      cid.version === 0 && cid.code === DAG_PB && cid.multihash.code === SHA2_256 && cid.multihash.size === 32 && cid.toString() === text
    );
  } catch {
    return false;
  }
}
