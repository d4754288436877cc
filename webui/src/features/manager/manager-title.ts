/** A manager page's document title: "Planes · Administración - <product>", so a staff tab never reads like the
 * customer page of the same name (both may be open side by side). */
import { usePageTitle } from '../../lib/page-title';

export const MANAGER = 'Administración';

export function useManagerTitle(page: string): void {
  usePageTitle(`${page} · ${MANAGER}`);
}
