import { Controller, Get, NotFoundException, Param, UseGuards } from '@nestjs/common';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { canonicalMac } from '#src/common/mac.js';
import { ChainMessages, ChainService } from './chain.service.js';
import type { ChainDeviceRecord, ChainFirmwareRecord } from './dto/chain-record.dto.js';

/** The blockchain lookup component (INTERFACE.md), mounted at `BC_URL`. */
@Controller()
@UseGuards(DeviceTokenGuard)
export class ChainController {
  constructor(private readonly chain: ChainService) {}

  /** `GET /device/:id` (`id` is the mac, any notation) → `{mac, fwId, dType}`; 404 `Device not found`. */
  @Get('device/:id')
  device(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainDeviceRecord> {
    const mac = canonicalMac(id);
    if (!mac) throw new NotFoundException(ChainMessages.deviceNotFound);
    return this.chain.device(principal.tenantId, mac);
  }

  /** `GET /firmware/:id` → `{md, cid, version}`; 404 `Firmware not found`. */
  @Get('firmware/:id')
  firmware(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainFirmwareRecord> {
    return this.chain.firmwareRecord(principal.tenantId, id);
  }
}
