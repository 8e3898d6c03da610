import { ApiProperty } from '@nestjs/swagger';

/**
 * The message object (docs/device-interface.md "Message object"): the outcome of many device endpoints and
 * the body of every non-2xx answer (docs/decisions.md §3).
 */
export class MessageResponse {
  /** Outcome or error text; the exact texts are listed per endpoint. */
  @ApiProperty({ description: 'Outcome or error text; the exact texts are listed per endpoint and status.', example: 'Device inserted!' })
  message: string;
}
