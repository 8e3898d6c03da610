import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';

/** Body of `POST {ipfs_url}/firmware/download`, as the field SDKs send it. Extra fields are ignored. */
export class DownloadFirmwareDto {
  /** CIDv0 of the binary; text that is no CID of the tenant's firmware is 404. */
  @ApiProperty({
    description: 'CIDv0 of the binary (`cid` of the ledger’s firmware record).',
    example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
  })
  @IsDefined({ message: 'cid is required' })
  @IsString({ message: 'cid must be a string' })
  cid: string;
}
