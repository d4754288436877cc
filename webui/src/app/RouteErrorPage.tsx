/** Router-level error element: a route that failed to render or whose code chunk failed to load. */
import { useLocation } from 'react-router';
import { ErrorFallback } from '../components/ErrorFallback';

export function RouteErrorPage() {
  const { pathname } = useLocation();
  const startPath = pathname.startsWith('/dashboard') ? '/dashboard/home' : '/';
  // A full reload also fetches a chunk again after a deployment replaced it.
  return <ErrorFallback startPath={startPath} onRetry={() => window.location.reload()} />;
}
