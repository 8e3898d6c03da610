import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A customer: owns one customer key and any number of device keys (docs/decisions.md §5). */
@Entity('tenant')
export class Tenant {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 128, unique: true })
  name: string;

  /** HMAC key of device signatures; a secret, shown to the operator once. */
  @Column({ name: 'customer_key', type: 'varchar', length: 128 })
  customerKey: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /** Seconds between the polls of its hawkBit DDI devices (`config.polling.sleep`, docs/decisions.md §12); default 300. */
  @Column({ name: 'ddi_polling_seconds', type: 'integer', default: 300 })
  ddiPollingSeconds: number;

  /**
   * PEM public key (RSA or ECDSA) every Mender artifact the tenant publishes must be signed with
   * (docs/decisions.md §13); `null`: signatures are recorded, not required.
   */
  @Column({ name: 'artifact_verify_key', type: 'text', nullable: true })
  artifactVerifyKey: string | null;
}
