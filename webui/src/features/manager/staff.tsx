/** The signed-in staff member (from `GET /api/admin/verify-token`) and what their role allows. */
import { createContext, useContext } from 'react';
import type { StaffUser } from './api/manager';

export const StaffContext = createContext<StaffUser | null>(null);

export function useStaff(): StaffUser & { isAdmin: boolean } {
  const staff = useContext(StaffContext);
  if (!staff) throw new Error('useStaff outside the manager');
  return { ...staff, isAdmin: staff.role === 'admin' };
}
