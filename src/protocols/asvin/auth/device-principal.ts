import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { DeviceKeyScope } from '#src/domain/tenant/device-key-scope.js';

/** Who a valid device token speaks for: the tenant scope of every device request (docs/decisions.md §5). */
export type DevicePrincipal = DeviceKeyScope;

export const PRINCIPAL = Symbol('firmledger.principal');

/** Injects the {@link DevicePrincipal} set by the device token guard. */
export const Principal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DevicePrincipal =>
    context.switchToHttp().getRequest<{ [PRINCIPAL]: DevicePrincipal }>()[PRINCIPAL],
);
