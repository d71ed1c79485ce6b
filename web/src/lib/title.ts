import { useEffect } from 'react';
import { useRuntimeConfig } from '../config/runtime';

/** Sets the tab title to '{company} - {page}' (spec: page titles) while the page is shown. */
export function useDocumentTitle(page: string): void {
  const { company_name } = useRuntimeConfig();
  useEffect(() => {
    document.title = `${company_name} - ${page}`;
  }, [company_name, page]);
}
