import { Controller, Get, NotFoundException, Param, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/auth/device-principal.js';
import { canonicalMac } from '#src/common/mac.js';
import { MAC_INPUT_DESCRIPTION } from '#src/device/dto/device.dto.js';
import { ApiDeviceAuth, ApiMessageResponse, ApiServerError } from '#src/openapi/api-responses.js';
import { ChainMessages, ChainService } from './chain.service.js';
import { ChainDeviceRecord, ChainFirmwareRecord } from './dto/chain-record.dto.js';

/** The blockchain lookup component (INTERFACE.md), mounted at `BC_URL`. */
@ApiTags('Ledger lookups')
@ApiDeviceAuth()
@ApiServerError()
@Controller()
@UseGuards(DeviceTokenGuard)
export class ChainController {
  constructor(private readonly chain: ChainService) {}

  /** `GET /device/:id` (`id` is the mac, any notation) → `{mac, fwId, dType}`; 404 `Device not found`. */
  @Get('device/:id')
  @ApiOperation({ summary: 'Look a device record up on the ledger', description: 'The current state the ledger defines (CONTRACT.md §7).' })
  @ApiParam({ name: 'id', description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03' })
  @ApiOkResponse({ description: 'The device record.', type: ChainDeviceRecord })
  @ApiMessageResponse(404, 'No such device in the tenant (also for an id that is not a hardware address).', ChainMessages.deviceNotFound)
  device(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainDeviceRecord> {
    const mac = canonicalMac(id);
    if (!mac) throw new NotFoundException(ChainMessages.deviceNotFound);
    return this.chain.device(principal.tenantId, mac);
  }

  /** `GET /firmware/:id` → `{md, cid, version}`; 404 `Firmware not found`. */
  @Get('firmware/:id')
  @ApiOperation({
    summary: 'Look a firmware record up on the ledger',
    description: 'The current state the ledger defines (CONTRACT.md §7).',
  })
  @ApiParam({
    name: 'id',
    description: 'Firmware id: decimal integer text (`firmware_id` of the next-rollout answer, `fwId`).',
    example: '1',
  })
  @ApiOkResponse({ description: 'The firmware record.', type: ChainFirmwareRecord })
  @ApiMessageResponse(404, 'No such firmware in the tenant.', ChainMessages.firmwareNotFound)
  firmware(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainFirmwareRecord> {
    return this.chain.firmwareRecord(principal.tenantId, id);
  }
}
