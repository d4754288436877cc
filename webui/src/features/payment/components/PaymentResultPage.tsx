/** Payment result (in progress). */
import { Title } from '@mantine/core';

export function PaymentResultPage() {
  return <Title order={2}>Pago</Title>;
}
