import { applyDecorators, Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encode as cborEncode } from 'cborg';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { DeviceTokenGuard } from '#src/protocols/asvin/auth/device-token.guard.js';
import { Principal, type DevicePrincipal } from '#src/protocols/asvin/auth/device-principal.js';
import { MAC_INPUT_DESCRIPTION } from '#src/protocols/asvin/device/dto/device.dto.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { ApiDeviceAuth } from '#src/protocols/asvin/auth/api-device-auth.js';
import { EntryProofResponse, entryProofResponse } from '#src/adapters/ledger/dto/proof.dto.js';
import { ProofMessages } from '#src/domain/ledger/ledger-proof.service.js';
import { ChainMessages, ChainService } from './chain.service.js';
import { proofBundleResponse } from './chain-responses.js';
import { ProofBundleResponse } from './dto/proof-bundle.dto.js';
import { ChainDeviceRecord, ChainFirmwareRecord, LedgerLookupDto } from '#src/protocols/asvin/chain/dto/chain-record.dto.js';

const DEVICE_LOOKUP = {
  summary: 'Look a device record up on the ledger',
  description: 'The current state the ledger defines. The GET and POST forms are one lookup.',
};
const FIRMWARE_LOOKUP = {
  summary: 'Look a firmware record up on the ledger',
  description: 'The current state the ledger defines. The GET and POST forms are one lookup.',
};
const DEVICE_PROOF = {
  summary: 'A device’s newest ledger entry with its inclusion proof',
  description:
    'The entry, the exact text its Merkle leaf covers, the audit path and the published checkpoint it is proved against ' +
    '(README: verifying a firmware image). The GET and POST forms are one lookup.',
};
const FIRMWARE_PROOF = {
  summary: 'A firmware’s ledger entry with its inclusion proof',
  description:
    'The `firmware.published` entry (size, MD5, SHA-256, CID), the exact text its Merkle leaf covers, the audit path and the ' +
    'published checkpoint it is proved against (README: verifying a firmware image). The GET and POST forms are one lookup.',
};
const NOT_YET = 'The entry is newer than the published checkpoint (a witness quorum is not met yet).';
const DEVICE_ABSENT = 'No such device in the tenant (also for an id that is not a hardware address).';
const FIRMWARE_ABSENT = 'No such firmware in the tenant.';
const FIRMWARE_ID_DESCRIPTION = 'Firmware id: decimal integer text (`firmware_id` of the next-rollout answer, `fwId`).';

/** What both forms of the device lookup answer. */
const ApiDeviceLookup = (): MethodDecorator =>
  applyDecorators(
    ApiOperation(DEVICE_LOOKUP),
    ApiOkResponse({ description: 'The device record.', type: ChainDeviceRecord }),
    ApiMessageResponse(404, DEVICE_ABSENT, ChainMessages.deviceNotFound),
  );

/** What both forms of the firmware lookup answer. */
const ApiFirmwareLookup = (): MethodDecorator =>
  applyDecorators(
    ApiOperation(FIRMWARE_LOOKUP),
    ApiOkResponse({ description: 'The firmware record.', type: ChainFirmwareRecord }),
    ApiMessageResponse(404, FIRMWARE_ABSENT, ChainMessages.firmwareNotFound),
  );

/** What both forms of a proof answer: the entry and its proof; 404 when the subject is absent; 409 when its entry is not yet published. */
const ApiProof = (operation: { summary: string; description: string }, absent: string, notFound: string): MethodDecorator =>
  applyDecorators(
    ApiOperation(operation),
    ApiOkResponse({ description: 'The entry and its proof.', type: EntryProofResponse }),
    ApiMessageResponse(404, absent, notFound),
    ApiMessageResponse(409, NOT_YET, ProofMessages.beyondCheckpoint(9, 8)),
  );

/** What both forms of the device proof answer. */
const ApiDeviceProof = (): MethodDecorator => ApiProof(DEVICE_PROOF, DEVICE_ABSENT, ChainMessages.deviceNotFound);

/** What both forms of the firmware proof answer. */
const ApiFirmwareProof = (): MethodDecorator => ApiProof(FIRMWARE_PROOF, FIRMWARE_ABSENT, ChainMessages.firmwareNotFound);

/** What a lookup names: a device by mac, or a firmware by id. */
interface LookupSubject {
  description: string;
  example: string;
  /** Key of the request body's example. */
  exampleName: string;
}
const DEVICE: LookupSubject = { description: MAC_INPUT_DESCRIPTION, example: 'AC:67:B2:01:02:03', exampleName: 'mac' };
const FIRMWARE: LookupSubject = { description: FIRMWARE_ID_DESCRIPTION, example: '1', exampleName: 'firmware' };

/** The subject as the `:id` path parameter of a GET form. */
const ApiIdParam = (subject: LookupSubject): MethodDecorator =>
  ApiParam({ name: 'id', description: subject.description, example: subject.example });

/** The subject as `{"id"}` in the body of a POST form, and that body's 400 texts. */
const ApiIdBody = (subject: LookupSubject): MethodDecorator =>
  applyDecorators(
    ApiBody({ type: LedgerLookupDto, examples: { [subject.exampleName]: { value: { id: subject.example } } } }),
    ApiJsonBodyErrors(['id is required', 'id must be a string']),
  );

/**
 * The blockchain lookup component, mounted at `BC_URL`: each lookup answers with the id in the
 * path (GET) and, as the field SDKs call it, with `{"id"}` in a POST body; both call one service rule.
 */
@ApiTags('Ledger lookups')
@ApiDeviceAuth()
@ApiServerError()
@Controller()
@UseGuards(DeviceTokenGuard)
export class ChainController {
  constructor(private readonly chain: ChainService) {}

  /** `GET /device/:id` (`id` is the mac, any notation) → `{mac, fwId, dType}`; 404 `Device not found`. */
  @Get('device/:id')
  @ApiDeviceLookup()
  @ApiIdParam(DEVICE)
  device(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainDeviceRecord> {
    return this.chain.device(principal.tenantId, id);
  }

  /** `POST /device/get` with `{"id": "<mac>"}`: the same lookup as `GET /device/:id`. */
  @Post('device/get')
  @HttpCode(200)
  @ApiDeviceLookup()
  @ApiIdBody(DEVICE)
  deviceByBody(@Principal() principal: DevicePrincipal, @Body() body: LedgerLookupDto): Promise<ChainDeviceRecord> {
    return this.chain.device(principal.tenantId, body.id);
  }

  /** `GET /firmware/:id` → `{md, cid, version}`; 404 `Firmware not found`. */
  @Get('firmware/:id')
  @ApiFirmwareLookup()
  @ApiIdParam(FIRMWARE)
  firmware(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<ChainFirmwareRecord> {
    return this.chain.firmwareRecord(principal.tenantId, id);
  }

  /** `POST /firmware/get` with `{"id": "<firmware id>"}`: the same lookup as `GET /firmware/:id`. */
  @Post('firmware/get')
  @HttpCode(200)
  @ApiFirmwareLookup()
  @ApiIdBody(FIRMWARE)
  firmwareByBody(@Principal() principal: DevicePrincipal, @Body() body: LedgerLookupDto): Promise<ChainFirmwareRecord> {
    return this.chain.firmwareRecord(principal.tenantId, body.id);
  }

  /** `GET /device/:id/proof` → the device's newest ledger entry and its inclusion proof; 404 `Device not found`. */
  @Get('device/:id/proof')
  @ApiDeviceProof()
  @ApiIdParam(DEVICE)
  async deviceProof(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<EntryProofResponse> {
    return entryProofResponse(await this.chain.deviceProof(principal.tenantId, id));
  }

  /** `POST /device/proof` with `{"id": "<mac>"}`: the same as `GET /device/:id/proof`. */
  @Post('device/proof')
  @HttpCode(200)
  @ApiDeviceProof()
  @ApiIdBody(DEVICE)
  async deviceProofByBody(@Principal() principal: DevicePrincipal, @Body() body: LedgerLookupDto): Promise<EntryProofResponse> {
    return entryProofResponse(await this.chain.deviceProof(principal.tenantId, body.id));
  }

  /** `GET /firmware/:id/proof` → the firmware's ledger entry and its inclusion proof; 404 `Firmware not found`. */
  @Get('firmware/:id/proof')
  @ApiFirmwareProof()
  @ApiIdParam(FIRMWARE)
  async firmwareProof(@Principal() principal: DevicePrincipal, @Param('id') id: string): Promise<EntryProofResponse> {
    return entryProofResponse(await this.chain.firmwareProof(principal.tenantId, id));
  }

  /** `POST /firmware/proof` with `{"id": "<firmware id>"}`: the same as `GET /firmware/:id/proof`. */
  @Post('firmware/proof')
  @HttpCode(200)
  @ApiFirmwareProof()
  @ApiIdBody(FIRMWARE)
  async firmwareProofByBody(@Principal() principal: DevicePrincipal, @Body() body: LedgerLookupDto): Promise<EntryProofResponse> {
    return entryProofResponse(await this.chain.firmwareProof(principal.tenantId, body.id));
  }

  /**
   * `GET /firmware/:id/bundle` → the offline proof bundle ({@link ProofBundleResponse}) as JSON, or
   * as CBOR (RFC 8949, the same structure) with `Accept: application/cbor`; 404 `Firmware not found`;
   * 409 while its entry is newer than the published checkpoint.
   */
  @Get('firmware/:id/bundle')
  @ApiOperation({
    summary: 'Everything to verify a firmware record offline',
    description:
      'The firmware’s ledger entry, the exact text its Merkle leaf covers, the inclusion proof against the published checkpoint ' +
      '(with the witnesses’ cosignatures) and the TUF metadata naming the same binary, in one document: JSON, or CBOR (RFC 8949, ' +
      'the same structure) with `Accept: application/cbor`. scripts/verify-proof.py checks it with no network (docs/transparency.md).',
  })
  @ApiProduces('application/json', 'application/cbor')
  @ApiExtraModels(ProofBundleResponse)
  @ApiOkResponse({
    description: 'The bundle.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ProofBundleResponse) } },
      'application/cbor': { schema: { type: 'string', format: 'binary', description: 'the same structure, CBOR-encoded' } },
    },
  })
  @ApiMessageResponse(404, FIRMWARE_ABSENT, ChainMessages.firmwareNotFound)
  @ApiMessageResponse(409, NOT_YET, ProofMessages.beyondCheckpoint(9, 8))
  @ApiIdParam(FIRMWARE)
  async firmwareBundle(
    @Principal() principal: DevicePrincipal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const bundle = proofBundleResponse(await this.chain.firmwareBundle(principal.tenantId, id));
    reply.header('Vary', 'Accept').header('Cache-Control', 'no-store');
    if (/\bapplication\/cbor\b/i.test(request.headers.accept ?? '')) {
      await reply.header('Content-Type', 'application/cbor').send(Buffer.from(cborEncode(bundle)));
      return;
    }
    await reply.header('Content-Type', 'application/json; charset=utf-8').send(bundle);
  }
}
