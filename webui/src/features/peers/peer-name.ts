/**
 * The peer name rule, as the server checks it (docs/api.md, "Plans and invoices"): 1 to 32 letters, digits, '-' or
 * '_'. Checked here too so the rename dialog says so before sending; the server's answer is the last word (a name
 * taken by another of the customer's peers is only known there).
 */
export const PEER_NAME_RULE = 'El nombre del peer debe tener entre 1 y 32 caracteres: letras, números, guion o guion bajo.';

const PEER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** The rule's message for a name that breaks it (after trimming, as the server does), or null. */
export function peerNameError(name: string): string | null {
  return PEER_NAME.test(name.trim()) ? null : PEER_NAME_RULE;
}

/** What the QR code and the configuration text carry: said the same way wherever either is shown. */
export const PRIVATE_KEY_WARNING = 'Contiene la clave privada del peer: no lo comparta.';
