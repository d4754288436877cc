/** Sets the document title as "<page> - <product name>", the one separator used on every page. */
import { useEffect } from 'react';
import { useProductName } from './public-config';

export function pageTitle(page: string, productName: string): string {
  return `${page} - ${productName}`;
}

export function usePageTitle(page: string): void {
  const productName = useProductName();
  useEffect(() => {
    document.title = pageTitle(page, productName);
  }, [page, productName]);
}
