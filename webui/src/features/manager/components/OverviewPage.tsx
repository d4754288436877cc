/** /manager/dashboard: users, peers, nodes, operations pending or failed, and revenue (admins). */
import { Badge, Card, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { UsageChart } from '../../../components/UsageChart';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useManagerTitle } from '../manager-title';
import { useRequest } from '../../../lib/use-request';
import { managerApi, type Overview, type UsageOverview } from '../api/manager';
import { bytes, dateTime, OPERATION_KIND } from '../format';
import { useStaffEvents } from '../hooks/use-staff-events';
import { RowTable } from './RowTable';

function Stat({ label, value, detail }: { label: string; value: number | string; detail?: string }) {
  return (
    // A labelled group: a label on the figure's paragraph is not allowed by ARIA (axe, aria-prohibited-attr).
    <Card withBorder padding="md" role="group" aria-label={label}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz={28}>
        {value}
      </Text>
      {detail && (
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      )}
    </Card>
  );
}

const STATUS_COLOR: Record<string, string> = { pending: 'yellow', failed: 'red', ok: 'green' };
const STATUS_LABEL: Record<string, string> = { pending: 'Pendiente', failed: 'Fallida', ok: 'Hecha' };

/** Bytes from the customers' side: download is what the servers sent to their devices. */
function TrafficCard({ usage }: { usage: UsageOverview }) {
  return (
    <Card withBorder data-testid="overview-traffic">
      <Title order={4} mb="sm">
        Tráfico este mes
      </Title>
      {/* Small type and spacing, as the revenue's: three columns fit a 360 px phone without scrolling sideways. */}
      <Table fz="sm" horizontalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Servidor</Table.Th>
              <Table.Th>Bajada</Table.Th>
              <Table.Th>Subida</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {usage.servers.map((server) => (
              <Table.Tr key={server.id}>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{server.name}</Table.Td>
                <Table.Td>{bytes(server.download)}</Table.Td>
                <Table.Td>{bytes(server.upload)}</Table.Td>
              </Table.Tr>
            ))}
            <Table.Tr fw={700}>
              <Table.Td>Total</Table.Td>
              <Table.Td>{bytes(usage.download)}</Table.Td>
              <Table.Td>{bytes(usage.upload)}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
      </Table>
      <Text size="sm" c="dimmed" mt="md" mb="xs">
        Tráfico total por día, últimos 30 días
      </Text>
      <UsageChart points={usage.days} bucket="day" formatBytes={bytes} label="Tráfico total por día en los últimos 30 días" />
    </Card>
  );
}

export function OverviewView({ data }: { data: Overview }) {
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Stat label="Clientes" value={data.users} detail={`${data.users_new_7d} nuevos en 7 días · ${data.customers_blocked} bloqueados`} />
        <Stat
          label="Peers activos"
          value={data.peers_active}
          detail={`${data.peers} en total · ${data.peers_shared_config ?? 0} usados en dos dispositivos`}
        />
        <Stat label="Servidores en línea" value={`${data.servers_online} / ${data.servers}`} detail={`${data.servers_active} habilitados`} />
        <Stat
          label="Operaciones pendientes"
          value={data.operations_pending}
          detail={`${data.operations_failed_24h} fallidas en 24 h`}
        />
      </SimpleGrid>
      {data.usage && <TrafficCard usage={data.usage} />}
      {data.revenue !== null && (
        <Card withBorder>
          <Title order={4} mb="sm">
            Ingresos por período y pasarela
          </Title>
          {data.revenue.length === 0 ? (
            <Text c="dimmed">Todavía no hay pagos registrados.</Text>
          ) : (
            // Small type and spacing: the four columns fit a 360 px phone without scrolling sideways.
            <Table fz="sm" horizontalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Período</Table.Th>
                  <Table.Th>Pasarela</Table.Th>
                  <Table.Th>Facturas</Table.Th>
                  <Table.Th>Importe (USD)</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.revenue.map((row) => (
                  <Table.Tr key={`${row.period}-${row.gateway}`}>
                    <Table.Td>{row.period}</Table.Td>
                    <Table.Td>{row.gateway_label}</Table.Td>
                    <Table.Td>{row.invoices}</Table.Td>
                    <Table.Td>{row.amount}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
      )}
      <Card withBorder>
        <Title order={4} mb="sm">
          Operaciones pendientes o fallidas
        </Title>
        {data.recent_operations.length === 0 ? (
          <Text c="dimmed">Ninguna: todos los servidores están al día.</Text>
        ) : (
          <RowTable
            rows={data.recent_operations}
            rowKey={(op) => op.id}
            striped={false}
            name={{ header: 'Operación', cell: (op) => OPERATION_KIND[op.kind] ?? op.kind }}
            columns={[
              { header: 'Fecha', cell: (op) => dateTime(op.created), detail: (op) => dateTime(op.created) },
              { header: 'Servidor', cell: (op) => op.server_name, detail: (op) => op.server_name },
              { header: 'Estado', cell: (op) => <Badge color={STATUS_COLOR[op.status]}>{STATUS_LABEL[op.status] ?? op.status}</Badge> },
              { header: 'Error', cell: (op) => op.error ?? '', detail: (op) => op.error ?? 'sin error' },
            ]}
          />
        )}
      </Card>
    </Stack>
  );
}

export function OverviewPage() {
  useManagerTitle('Resumen');
  const { state, reload } = useRequest((signal) => managerApi.overview(signal));
  // Nodes coming and going and every staff action can change the figures: reload quietly.
  useStaffEvents(['node_status', 'audit'], reload);
  return (
    <Stack>
      <Title order={2}>Resumen</Title>
      {state.status === 'loading' && <LoadingState />}
      {state.status === 'error' && (
        <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos.')} onRetry={reload} />
      )}
      {state.status === 'success' && <OverviewView data={state.data} />}
    </Stack>
  );
}
