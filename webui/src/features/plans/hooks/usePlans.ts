/** Loads the plan catalogue; `auth` false on the public page (anonymous read), true in the dashboard. */
import { useRequest } from '../../../lib/use-request';
import { fetchPlans } from '../api/plans';

export function usePlans(auth: boolean) {
  return useRequest((signal) => fetchPlans(auth, signal));
}
