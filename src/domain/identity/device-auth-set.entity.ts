import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * The states of an auth set (docs/decisions.md §13, Mender's deviceauth terms):
 * - `pending`: the device asked to be admitted; an operator accepts or rejects it;
 * - `accepted`: it authenticates (one accepted key per device at a time);
 * - `rejected`: an operator refused it; the device is answered 401;
 * - `preauthorized`: an operator admitted the identity and key beforehand: accepted on its first request;
 * - `decommissioned`: the device was taken out of service; answered 401 until accepted again.
 */
export const AUTH_SET_STATUSES = ['pending', 'accepted', 'rejected', 'preauthorized', 'decommissioned'] as const;
export type AuthSetStatus = (typeof AUTH_SET_STATUSES)[number];

/**
 * An auth set: a device identity (a Mender device's `id_data`) with one public key, and whether
 * it may authenticate (docs/decisions.md §13). One row per tenant, identifier and key.
 */
@Entity('device_auth_set')
export class DeviceAuthSet {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  /** The device's identifier in the device table: its mac, or `mender-` and a digest of its identity. */
  @Column({ type: 'varchar', length: 256 })
  identifier: string;

  /** The identity as canonical JSON (RFC 8785): `{"mac":"02:00:00:00:00:01","serial":"SN-1"}`. */
  @Column({ name: 'id_data', type: 'text' })
  idData: string;

  /** The device's public key, PEM SubjectPublicKeyInfo. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  /** Lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  @Column({ type: 'varchar', length: 16 })
  status: AuthSetStatus;

  /** The device key the device's tenant token named (its type is the device's); `null` for a preauthorized set not seen yet. */
  @Column({ name: 'device_key_id', type: 'integer', nullable: true })
  deviceKeyId: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** When its state, key or identity last changed (epoch ms). */
  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt: number;
}
