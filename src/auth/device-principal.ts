import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who a valid device token speaks for: the tenant scope of every device request (docs/decisions.md §5). */
export interface DevicePrincipal {
  tenantId: number;
  deviceKeyId: number;
  /** `dType` of the device key. */
  deviceType: string;
}

export const PRINCIPAL = Symbol('firmledger.principal');

/** Injects the {@link DevicePrincipal} set by the device token guard. */
export const Principal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DevicePrincipal =>
    context.switchToHttp().getRequest<{ [PRINCIPAL]: DevicePrincipal }>()[PRINCIPAL],
);
