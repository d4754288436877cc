/**
 * How the manager names each audit action. Kept beside the server's list (controlplane/domain/audit/actions.py):
 * the type makes `tsc` fail when the API's enum gains an action without a label here, and
 * tests/unit/test_audit_actions.py fails when the two lists differ, so the pages never show a raw code.
 */
import type { AuditEntry } from './api/manager';

export type AuditAction = AuditEntry['action'];

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'user.block': 'Usuario bloqueado',
  'user.unblock': 'Usuario desbloqueado',
  'user.delete': 'Cuenta eliminada',
  'user.password_reset': 'Enlace de nueva contraseña enviado',
  'user.verification': 'Verificación de email reenviada',
  'server.create': 'Servidor creado',
  'server.update': 'Servidor modificado',
  'server.credential_reissue': 'Credencial del nodo reemitida',
  'server.credential_revoke': 'Credencial del nodo revocada',
  'peer.create': 'Peer creado',
  'peer.update': 'Peer modificado',
  'peer.move': 'Peer movido de servidor',
  'peer.extend': 'Plan añadido a un peer',
  'peer.rename': 'Peer renombrado',
  'plan.create': 'Plan creado',
  'plan.update': 'Plan modificado',
  'announcement.create': 'Anuncio publicado',
  'announcement.update': 'Anuncio modificado',
  'announcement.delete': 'Anuncio eliminado',
  'release.create': 'Versión del cliente publicada',
  'release.delete': 'Versión del cliente eliminada',
  'invoice.manual_payment': 'Pago manual registrado',
  'switches.update': 'Interruptores cambiados',
};

/** The label, or the code itself for an action this build does not know yet (a newer server). */
export function auditActionLabel(action: string): string {
  return (AUDIT_ACTION_LABELS as Record<string, string>)[action] ?? action;
}
