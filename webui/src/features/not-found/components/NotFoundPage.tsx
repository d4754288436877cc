/** 404 page (in progress). */
import { Title } from '@mantine/core';

export function NotFoundPage() {
  return <Title order={2}>Página no encontrada</Title>;
}
