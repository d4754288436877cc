/** /dashboard/home: client update notice, announcements or a welcome card, and the support card. */
import { Alert, Anchor, Button, Card, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { IconClockExclamation, IconDownload, IconHeadset, IconSpeakerphone } from '@tabler/icons-react';
import { Link } from 'react-router';
import { LoadingState } from '../../../components/LoadingState';
import { SectionError } from '../../../components/SectionError';
import { errorMessage } from '../../../lib/api';
import { useCurrentUser } from '../../../lib/current-user';
import { usePublicConfig } from '../../../lib/public-config';
import { useRequest } from '../../../lib/use-request';
import { daysLeftText, expiresSoon, renewPath } from '../../peers/expiry';
import { formatExpiration } from '../../peers/peer-format';
import { fetchHomeData, fetchPendingPayments, type Announcement, type ClientRelease, type HomePeer } from '../api/home';
import { isNewerClient } from '../client-version';
import { AttentionList } from './AttentionList';
import { spanishLongDate } from '../spanish-date';

function ClientUpdateCard({ release }: { release: ClientRelease }) {
  return (
    <Card withBorder padding="lg" bg="var(--mantine-color-yellow-0)">
      <Group justify="space-between" wrap="wrap">
        <Stack gap={2}>
          <Text fw={700}>Nueva versión del cliente disponible</Text>
          <Text size="sm">La versión {release.version} ya está disponible para descargar.</Text>
        </Stack>
        <Button
          leftSection={<IconDownload size={16} />}
          onClick={() => window.open(release.url, '_blank', 'noopener')}
        >
          Descargar
        </Button>
      </Group>
    </Card>
  );
}

function WelcomeCard({ roomsAllowed }: { roomsAllowed: boolean }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="xs">
        <Title order={3}>¡Bienvenido!</Title>
        <Text>
          Su conexión está protegida con WireGuard: tráfico cifrado, privacidad frente a redes públicas y la velocidad
          de un protocolo moderno.
        </Text>
        {roomsAllowed && (
          <Text>Cree salas privadas o únase a las de sus amigos para que sus peers se vean en una red privada.</Text>
        )}
      </Stack>
    </Card>
  );
}

function AnnouncementList({ announcements }: { announcements: Announcement[] }) {
  return (
    <Stack gap="md">
      {announcements.map((announcement) => (
        <Card key={announcement.id} withBorder padding="lg">
          <Stack gap={4}>
            <Group gap="xs">
              <IconSpeakerphone size={18} />
              <Text fw={700}>{announcement.name}</Text>
            </Group>
            <Text size="xs" c="dimmed">
              {spanishLongDate(announcement.created)}
            </Text>
            <Text style={{ whiteSpace: 'pre-line' }}>{announcement.message}</Text>
          </Stack>
        </Card>
      ))}
    </Stack>
  );
}

/** Peers whose plan ends within 3 days, each with its date and the renew shortcut (docs/webui.md, "Expiry"). */
function ExpiryWarning({ peers }: { peers: HomePeer[] }) {
  const soon = peers.filter((peer) => expiresSoon(peer));
  if (soon.length === 0) return null;
  return (
    <Alert color="orange" icon={<IconClockExclamation />} title="Peers a punto de vencer" role="alert">
      <Stack gap="xs">
        {soon.map((peer) => (
          <Group key={peer.id} justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm">
              El peer <b>{peer.name}</b> vence el {formatExpiration(peer.expiration_date)} ({daysLeftText(peer.expiration_date)?.toLowerCase()}).
              Al vencer quedará deshabilitado.
            </Text>
            {peer.manual_payment ? (
              <Text size="sm" c="dimmed">
                Contacte con soporte para renovarlo.
              </Text>
            ) : (
              <Button component={Link} to={renewPath(peer.id)} size="xs" aria-label={`Renovar ${peer.name}`}>
                Renovar
              </Button>
            )}
          </Group>
        ))}
      </Stack>
    </Alert>
  );
}

function SupportCard({ supportUrl }: { supportUrl: string }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="xs">
        <Group gap="xs">
          <IconHeadset size={20} />
          <Title order={4}>Soporte</Title>
        </Group>
        <Text size="sm">¿Tiene dudas o algún problema con su servicio? Nuestro equipo de soporte puede ayudarle.</Text>
        {supportUrl ? (
          <Button variant="light" onClick={() => window.open(supportUrl, '_blank', 'noopener')}>
            Contactar Soporte
          </Button>
        ) : (
          <Text size="sm" c="dimmed">
            El soporte en línea no está disponible en este momento. Consulte el{' '}
            <Anchor component={Link} to="/dashboard/help">
              Centro de Ayuda
            </Anchor>{' '}
            para las dudas más comunes.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

export function HomePage() {
  const config = usePublicConfig();
  const { user } = useCurrentUser();
  const { state, reload } = useRequest(fetchHomeData);
  // Beside Home's data rather than inside it: Home shows without waiting for the invoices (docs/webui.md).
  const payments = useRequest(fetchPendingPayments).state;

  if (state.status === 'loading') return <LoadingState />;
  if (state.status === 'error') {
    return <SectionError message={errorMessage(state.error, 'Hubo un error al cargar los datos de la sección')} onRetry={reload} />;
  }
  const { announcements, release, peers } = state.data;
  return (
    <Stack gap="lg">
      <Title order={2}>Home</Title>
      <AttentionList peers={peers} payments={payments.status === 'success' ? payments.data : []} />
      <ExpiryWarning peers={peers} />
      {release && isNewerClient(release.version) && <ClientUpdateCard release={release} />}
      {announcements.length === 0 ? (
        <Stack gap="lg">
          <WelcomeCard roomsAllowed={user.web_settings.allow_partys} />
          <SupportCard supportUrl={config.support_url} />
        </Stack>
      ) : (
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 8 }}>
            <AnnouncementList announcements={announcements} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <SupportCard supportUrl={config.support_url} />
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
