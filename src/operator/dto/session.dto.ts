import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { OPERATOR_ROLES, type OperatorRole } from '#src/domain/access/operator-role.js';
import type { SessionView } from '#src/domain/access/operator-session.service.js';

/** 400 texts of the sign-in body. */
export const SignInMessages = {
  usernameRequired: 'username is required',
  username: 'username must be a string of 1 to 64 characters',
  passwordRequired: 'password is required',
  password: 'password must be a string of 1 to 256 characters',
} as const;

/** Body of `POST /session`: an operator account's username and password. */
export class SignInDto {
  @ApiProperty({ description: 'username of an operator account (`firmledger operator-user create`)', example: 'alice' })
  @Length(1, 64, { message: SignInMessages.username })
  @IsString({ message: SignInMessages.username })
  @IsDefined({ message: SignInMessages.usernameRequired })
  username: string;

  @ApiProperty({ description: 'its password', example: 'correct horse battery staple' })
  @Length(1, 256, { message: SignInMessages.password })
  @IsString({ message: SignInMessages.password })
  @IsDefined({ message: SignInMessages.passwordRequired })
  password: string;
}

/** The signed-in operator. */
export class SessionOperator {
  @ApiProperty({ description: 'username', example: 'alice' })
  username: string;

  @ApiProperty({ description: '`admin` may do everything, `viewer` may only read', enum: OPERATOR_ROLES, example: 'admin' })
  role: OperatorRole;

  @ApiProperty({ description: 'when the session ends at the latest (sooner when idle), ISO 8601 UTC', example: '2026-11-21T22:00:00.000Z' })
  expires_at: string;
}

/** Who the session cookie signs in: `operator` is `null` without a live session. */
export class SessionResponse {
  @ApiProperty({
    type: SessionOperator,
    nullable: true,
    description: 'the signed-in operator, or null',
    example: { username: 'alice', role: 'admin', expires_at: '2026-11-21T22:00:00.000Z' },
  })
  operator: SessionOperator | null;
}

export function sessionResponse(session: SessionView | null): SessionResponse {
  if (!session) return { operator: null };
  const { principal, expiresAt } = session;
  return { operator: { username: principal.name, role: principal.role, expires_at: new Date(expiresAt).toISOString() } };
}
