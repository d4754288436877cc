/**
 * /dashboard/invoices ('Facturas'): the customer's purchases, newest first: plan, peer, amount, gateway, state and
 * date, with the receipt of each paid one. Cards at every width, so nothing needs scrolling sideways.
 */
import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { IconReceipt } from '@tabler/icons-react';
import { Link } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useRequest } from '../../../lib/use-request';
import { formatDateTime, formatPrice } from '../../peers/peer-format';
import { fetchInvoices, type InvoiceListItem } from '../api/invoices';

/** The state's color; its words are the server's (`status_text`). */
const STATE_COLOR: Record<string, string> = {
  pending: 'yellow',
  paid: 'blue',
  fulfilled: 'green',
  canceled: 'gray',
  expired: 'gray',
  failed: 'red',
};

export const receiptPath = (invoice: Pick<InvoiceListItem, 'remote_id'>) =>
  `/dashboard/invoices/${encodeURIComponent(invoice.remote_id)}`;

function InvoiceCard({ invoice }: { invoice: InvoiceListItem }) {
  return (
    <Card withBorder padding="sm" component="section" aria-label={`Factura de ${invoice.plan_name} del ${formatDateTime(invoice.created)}`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text fw={700}>
            {invoice.plan_name} · {formatPrice(invoice.amount)}
          </Text>
          <Badge color={STATE_COLOR[invoice.status] ?? 'gray'} variant="light" style={{ whiteSpace: 'normal', height: 'auto', minWidth: 0 }}>
            {invoice.status_text}
          </Badge>
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          Peer: {invoice.peer_name} · Pasarela: {invoice.gateway_name}
        </Text>
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Text size="sm">{formatDateTime(invoice.created)}</Text>
          {invoice.receipt && (
            <Button
              component={Link}
              to={receiptPath(invoice)}
              size="xs"
              variant="light"
              leftSection={<IconReceipt size={14} />}
              aria-label={`Ver recibo de ${invoice.plan_name} del ${formatDateTime(invoice.created)}`}
            >
              Ver recibo
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

export function InvoicesPage() {
  const { state, reload } = useRequest(fetchInvoices);
  if (state.status === 'loading') return <LoadingState />;
  if (state.status === 'error') {
    return <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />;
  }
  return (
    <Stack>
      <Title order={2}>Facturas</Title>
      {state.data.length === 0 ? (
        <Stack align="flex-start">
          <Text>Aún no tiene facturas. Aparecerán aquí cuando adquiera un plan.</Text>
          <Button component={Link} to="/dashboard/plans">
            Ver planes
          </Button>
        </Stack>
      ) : (
        <Stack gap="sm">
          {state.data.map((invoice) => (
            <InvoiceCard key={invoice.remote_id} invoice={invoice} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
