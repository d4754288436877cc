/** /dashboard/payment: the gateway's return page (status, transaction_uuid, remote_id query parameters). */
import { Alert, Button, Card, Loader, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck, IconQuestionMark, IconX } from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../../lib/api';
import { useRequest } from '../../../lib/use-request';
import { fetchInvoice } from '../api/invoice';

const OUTCOMES = {
  success: { title: 'Pago Exitoso', color: 'green', icon: <IconCheck /> },
  canceled: { title: 'Pago Cancelado', color: 'red', icon: <IconX /> },
  unknown: { title: 'Estado de Pago Desconocido', color: 'gray', icon: <IconQuestionMark /> },
} as const;

export function paymentOutcome(status: string | null): keyof typeof OUTCOMES {
  return status === 'success' || status === 'canceled' ? status : 'unknown';
}

function InvoiceSummary({ remoteId, transaction }: { remoteId: string; transaction: string | null }) {
  const { state } = useRequest((signal) => fetchInvoice(remoteId, signal));
  if (state.status === 'loading') return <Loader aria-label="Cargando factura" />;
  if (state.status === 'error') {
    return (
      <Alert color="red" role="alert" title="Error al obtener los detalles de la factura">
        {errorMessage(state.error, 'Hubo un error al intentar cargar los datos de la factura.')}
      </Alert>
    );
  }
  const rows: [string, string][] = [
    ['Plan', state.data.plan_name],
    ['Peer', state.data.peer_name],
    ['Monto', `${state.data.amount} USD`],
    // The gateway's return URL carries the id; the invoice knows it too when a gateway leaves it out.
    ['ID de transacción', transaction || state.data.transaction_uuid || 'No disponible'],
  ];
  return (
    <Table>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th>{label}</Table.Th>
            <Table.Td>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function PaymentResultPage() {
  const [params] = useSearchParams();
  const outcome = OUTCOMES[paymentOutcome(params.get('status'))];
  const remoteId = params.get('remote_id');
  const transaction = params.get('transaction_uuid');

  return (
    <Card withBorder padding="xl" maw={560} mx="auto">
      <Stack align="center" gap="md">
        <ThemeIcon size={56} radius="xl" color={outcome.color}>
          {outcome.icon}
        </ThemeIcon>
        <Title order={2}>{outcome.title}</Title>
        {remoteId ? (
          <InvoiceSummary remoteId={remoteId} transaction={transaction} />
        ) : (
          <Text c="dimmed">ID de transacción: {transaction || 'No disponible'}</Text>
        )}
        <Button component={Link} to="/dashboard/home">
          Volver al inicio
        </Button>
      </Stack>
    </Card>
  );
}
