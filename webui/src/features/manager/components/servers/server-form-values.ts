/** The server form's values: what a new server starts with, an existing one's, and the checks made before asking. */
import type { ServerInput, ServerStatus } from '../../api/manager';

/** What the server form edits: every field of a new server but the interface name, which keeps its default. */
export type ServerFormValues = Required<Omit<ServerInput, 'interface_name'>>;

export const EMPTY_SERVER: ServerFormValues = {
  name: '',
  address: '',
  tunnel_subnet: '',
  port: 51820,
  ubication: '',
  active: true,
  allow_partys: false,
  dns: '1.1.1.1',
  capacity: 250,
  backbone_endpoint: '',
  backbone_port: 51821,
};

export function formValuesOf(server: ServerStatus): ServerFormValues {
  const { name, address, tunnel_subnet, port, ubication, active, allow_partys, dns, capacity, backbone_endpoint, backbone_port } = server;
  return { name, address, tunnel_subnet, port, ubication, active, allow_partys, dns, capacity, backbone_endpoint, backbone_port };
}

// What a WireGuard Endpoint takes before ":port": a DNS name or an IP (the server checks the same and more,
// docs/api.md "Servers"). A name's last label is never all digits, so "10.0.0" is neither.
const HOST_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

function isIp(value: string): boolean {
  return IPV4.test(value) || (value.includes(':') && IPV6.test(value));
}

function isHostName(value: string): boolean {
  return HOST_NAME.test(value) && !/^\d+$/.test(value.replace(/\.$/, '').split('.').pop() ?? '');
}

function isHost(value: string): boolean {
  return isIp(value) || isHostName(value);
}

/** The DNS line of customers' files: one or more IPs separated by commas, search domains optional. */
function isDns(value: string): boolean {
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.every((entry) => isIp(entry) || isHostName(entry)) && entries.some(isIp);
}

function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 65535;
}

/** Field errors the form can tell before asking the server; the server checks the same and more. */
export function serverFormErrors(values: ServerFormValues): Partial<Record<keyof ServerFormValues, string>> {
  const errors: Partial<Record<keyof ServerFormValues, string>> = {};
  // Blank ones are the server's to refuse ("obligatoria"): the form says only what a typed value gets wrong.
  const address = values.address.trim();
  if (address && !isHost(address)) errors.address = 'Indique un nombre de host o una IP, sin puerto, corchetes ni esquema.';
  const dns = values.dns.trim();
  if (dns && !isDns(dns)) errors.dns = 'Indique una o más IP separadas por comas; dominios de búsqueda opcionales.';
  if (!isPort(values.port)) errors.port = 'Indique un puerto entre 1 y 65535.';
  const endpoint = values.backbone_endpoint.trim();
  if (endpoint && !isHost(endpoint)) {
    errors.backbone_endpoint = 'Indique un nombre de host o una IP, sin puerto ni esquema.';
  }
  if (!isPort(values.backbone_port)) errors.backbone_port = 'Indique un puerto entre 1 y 65535.';
  else if (values.backbone_port === values.port) errors.backbone_port = 'Debe ser distinto del puerto UDP de los clientes.';
  return errors;
}
