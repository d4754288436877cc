/** /dashboard/invoices/{remote id}: the receipt of a paid invoice, printable ('Imprimir' prints it alone). */
import { Alert, Button, Card, Divider, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft, IconPrinter } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useCurrentUser } from '../../../lib/current-user';
import { useProductName } from '../../../lib/public-config';
import { useRequest } from '../../../lib/use-request';
import { formatDateTime, formatPrice } from '../../peers/peer-format';
import { fetchInvoices, type InvoiceListItem } from '../api/invoices';
import './receipt.css';

function BackLink() {
  return (
    <Button component={Link} to="/dashboard/invoices" variant="subtle" leftSection={<IconArrowLeft size={16} />} className="receipt-no-print">
      Volver a Facturas
    </Button>
  );
}

function Receipt({ invoice }: { invoice: InvoiceListItem }) {
  const productName = useProductName();
  const { user } = useCurrentUser();
  const rows: [string, string][] = [
    ['Número', invoice.remote_id],
    ['Fecha de pago', formatDateTime(invoice.paid_at ?? invoice.created)],
    ['Cliente', user.username],
    ['Plan', invoice.plan_name],
    ['Peer', invoice.peer_name],
    ['Pasarela de pago', invoice.gateway_name],
    ['Transacción', invoice.transaction_uuid ?? 'No disponible'],
    ['Estado', invoice.status_text],
  ];
  return (
    <Card withBorder padding="lg" className="receipt" w="100%" maw={640}>
      <Stack>
        <Group justify="space-between" wrap="wrap">
          <Title order={2}>Recibo de pago</Title>
          <Text fw={700}>{productName}</Text>
        </Group>
        <Divider />
        <Table variant="vertical" layout="fixed" withRowBorders>
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th w="40%">{label}</Table.Th>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Group justify="space-between">
          <Text fw={700}>Total pagado</Text>
          <Text fw={700} size="lg">
            {formatPrice(invoice.amount)}
          </Text>
        </Group>
      </Stack>
    </Card>
  );
}

export function ReceiptPage() {
  const { remoteId = '' } = useParams();
  // The list carries every field of a receipt (a customer has a few invoices a year), so no call of its own.
  const { state, reload } = useRequest(fetchInvoices);
  if (state.status === 'loading') return <LoadingState />;
  if (state.status === 'error') {
    return <SectionError message={errorMessage(state.error, 'Hubo un error al intentar cargar los datos de la factura.')} onRetry={reload} />;
  }
  const invoice = state.data.find((item) => item.remote_id === remoteId);
  return (
    <Stack align="flex-start">
      <BackLink />
      {!invoice ? (
        <Alert color="red" title="Factura no encontrada">
          No tiene ninguna factura con ese número.
        </Alert>
      ) : !invoice.receipt ? (
        <Alert color="yellow" title="Sin recibo">
          Esta factura no tiene recibo porque no consta como pagada ({invoice.status_text}).
        </Alert>
      ) : (
        <>
          <Receipt invoice={invoice} />
          <Button leftSection={<IconPrinter size={16} />} onClick={() => window.print()} className="receipt-no-print">
            Imprimir
          </Button>
        </>
      )}
    </Stack>
  );
}
