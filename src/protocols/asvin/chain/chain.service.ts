import { Injectable, NotFoundException } from '@nestjs/common';
import { canonicalMac } from '#src/platform/common/mac.js';
import { FIRMWARE_NOT_FOUND, FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { DEVICE_RECORD_ENTRIES, DeviceService } from '#src/domain/device/device.service.js';
import { TufService } from '#src/domain/tuf/tuf.service.js';
import { chainDeviceRecord, chainFirmwareRecord, type FirmwareBundleView } from './chain-responses.js';
import type { ChainDeviceRecord, ChainFirmwareRecord } from '#src/protocols/asvin/chain/dto/chain-record.dto.js';
import { LedgerProofService, type EntryProofView } from '#src/domain/ledger/ledger-proof.service.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';

/** 404 texts of the lookups (docs/decisions.md §7). */
export const ChainMessages = {
  deviceNotFound: 'Device not found',
  firmwareNotFound: FIRMWARE_NOT_FOUND,
} as const;

/**
 * Read-only lookups of the current state the ledger defines. Each is one rule
 * behind two routes: the GET form with the id in the path and the POST form the field SDKs use,
 * with `{"id"}` in the body.
 */
@Injectable()
export class ChainService {
  constructor(
    private readonly ledger: LedgerService,
    private readonly devices: DeviceService,
    private readonly firmware: FirmwareService,
    private readonly proofs: LedgerProofService,
    private readonly tuf: TufService,
  ) {}

  /**
   * Everything to check a firmware record offline: its ledger entry and inclusion proof against the
   * published checkpoint (with its cosignatures), and the TUF metadata of its repository.
   * @param id decimal id text.
   * @throws NotFoundException `Firmware not found`; ConflictException while the entry is newer than the published checkpoint.
   */
  async firmwareBundle(tenantId: number, id: string): Promise<FirmwareBundleView> {
    const proof = await this.firmwareProof(tenantId, id);
    const firmware = await this.firmware.get(tenantId, Number(id));
    return { proof, firmware, tuf: await this.tuf.metadataSet(tenantId, firmware.deviceType) };
  }

  /**
   * The newest ledger entry of a device, with its inclusion proof against the published checkpoint.
   * @param id the mac, any accepted notation.
   * @throws NotFoundException `Device not found` when the tenant's ledger has no entry of it.
   */
  async deviceProof(tenantId: number, id: string): Promise<EntryProofView> {
    const mac = canonicalMac(id);
    const proof = mac === null ? null : await this.proofs.subjectProof(tenantId, Subject.device(mac));
    if (!proof) throw new NotFoundException(ChainMessages.deviceNotFound);
    return proof;
  }

  /**
   * The firmware's ledger entry, with its inclusion proof against the published checkpoint.
   * @param id decimal id text.
   * @throws NotFoundException `Firmware not found`.
   */
  async firmwareProof(tenantId: number, id: string): Promise<EntryProofView> {
    const proof = /^\d{1,15}$/.test(id) ? await this.proofs.subjectProof(tenantId, Subject.firmware(Number(id))) : null;
    if (!proof) throw new NotFoundException(ChainMessages.firmwareNotFound);
    return proof;
  }

  /**
   * The device record from the device's newest ledger entry that records it
   * ({@link DEVICE_RECORD_ENTRIES}: not its labels or reported attributes). A device imported in
   * bulk has no entry of its own until it changes (the import's one entry commits to the file,
   * docs/decisions.md §14): its record is then read from the registry.
   * @param id the mac, any accepted notation; anything else is not found.
   * @throws NotFoundException `Device not found` when the tenant has no such device (or it was deleted).
   */
  async device(tenantId: number, id: string): Promise<ChainDeviceRecord> {
    const mac = canonicalMac(id);
    if (!mac) throw new NotFoundException(ChainMessages.deviceNotFound);
    const current = await this.ledger.current(tenantId, Subject.device(mac), DEVICE_RECORD_ENTRIES);
    if (current?.type === 'device.deleted') throw new NotFoundException(ChainMessages.deviceNotFound);
    const record = current ? (current.state as { firmwareVersion: string; deviceType: string }) : await this.devices.find(tenantId, mac);
    if (!record) throw new NotFoundException(ChainMessages.deviceNotFound);
    const { firmwareVersion, deviceType } = record;
    const fwId = await this.firmware.idOfVersion(tenantId, deviceType, firmwareVersion);
    return chainDeviceRecord(mac, fwId, deviceType);
  }

  /**
   * The firmware record from the firmware's ledger entry.
   * @param id decimal id text; anything else is not found.
   * @throws NotFoundException `Firmware not found`.
   */
  async firmwareRecord(tenantId: number, id: string): Promise<ChainFirmwareRecord> {
    const current = /^\d{1,15}$/.test(id) ? await this.ledger.current(tenantId, Subject.firmware(Number(id))) : null;
    if (!current) throw new NotFoundException(ChainMessages.firmwareNotFound);
    return chainFirmwareRecord(current.state as { md5: string; cid: string; version: string });
  }
}
