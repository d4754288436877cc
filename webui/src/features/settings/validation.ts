/** The settings checks (docs/contract.md#validation), as pure functions returning the message to show or null. */

export const ALIAS_BLANK = 'El alias no puede estar en blanco';
export const EMAIL_BLANK = 'El email no puede estar en blanco';
export const EMAIL_UNCHANGED = 'El nuevo email no puede ser igual q el anterior';
export const PASSWORDS_BLANK = 'Las contraseñas no pueden estar en blanco.';
export const PASSWORDS_MISMATCH = 'Las contraseñas no coinciden.';
export const PASSWORD_UNCHANGED = 'La nueva contraseña no puede ser igual a la anterior.';

export function aliasProblem(alias: string): string | null {
  return alias.trim() ? null : ALIAS_BLANK;
}

export function emailProblem(email: string, current: string | null): string | null {
  if (!email.trim()) return EMAIL_BLANK;
  if (current !== null && email.trim() === current) return EMAIL_UNCHANGED;
  return null;
}

export function passwordProblem(oldPassword: string, newPassword: string, confirmation: string): string | null {
  if (!oldPassword || !newPassword || !confirmation) return PASSWORDS_BLANK;
  if (newPassword !== confirmation) return PASSWORDS_MISMATCH;
  if (newPassword === oldPassword) return PASSWORD_UNCHANGED;
  return null;
}
