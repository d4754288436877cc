/** The payment gateways the server knows; which are on comes from the public config's switches. */
import type { PublicConfig } from '../../lib/public-config';

export type GatewayId = 'qvapay' | 'remesita';

export interface Gateway {
  id: GatewayId;
  label: string;
}

/** In the server's order of preference: with both on and none named, the server uses the first. */
export const GATEWAYS: Gateway[] = [
  { id: 'qvapay', label: 'QvaPay' },
  { id: 'remesita', label: 'Remesita' },
];

/** The gateways presented as the secure payment providers: those whose switch is on (none: no purchases). */
export function enabledGateways(config: Pick<PublicConfig, 'allow_payments_qvapay' | 'allow_payments_remesita'>) {
  return GATEWAYS.filter((gateway) =>
    gateway.id === 'qvapay' ? config.allow_payments_qvapay : config.allow_payments_remesita,
  );
}

/** How a gateway id reads: its brand ("QvaPay", "Remesita"). */
export function gatewayLabel(id: string): string {
  return GATEWAYS.find((gateway) => gateway.id === id)?.label ?? id;
}
