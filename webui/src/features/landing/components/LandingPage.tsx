/** /: the landing page pitching security, privacy and speed, with the Cuba block and feature cards. */
import { Anchor, Badge, Button, Card, Container, Group, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import {
  IconBolt,
  IconCalendarTime,
  IconDeviceDesktop,
  IconDownload,
  IconLock,
  IconShieldLock,
  IconUsersGroup,
  IconWallet,
  IconWorld,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PublicHeader } from '../../../components/PublicHeader';
import { usePageTitle } from '../../../lib/page-title';
import { useProductName } from '../../../lib/public-config';

export const WIREGUARD_INSTALL_URL = 'https://www.wireguard.com/install/';

interface Feature {
  icon: ReactNode;
  title: string;
  text: string;
}

const PITCH: Feature[] = [
  {
    icon: <IconShieldLock />,
    title: 'Seguridad',
    text: 'Su tráfico viaja cifrado con WireGuard, un protocolo moderno y auditado.',
  },
  {
    icon: <IconLock />,
    title: 'Privacidad',
    text: 'Navegue sin que su proveedor de internet ni las redes públicas vean lo que hace.',
  },
  {
    icon: <IconBolt />,
    title: 'Velocidad',
    text: 'Conexiones rápidas y estables, con muy poca latencia añadida.',
  },
];

const PLAN_FEATURES: Feature[] = [
  {
    icon: <IconCalendarTime />,
    title: 'Planes flexibles',
    text: 'Elija la duración que necesite y renueve cuando quiera sobre el mismo peer.',
  },
  {
    icon: <IconDeviceDesktop />,
    title: 'Un peer por dispositivo',
    text: 'Cada peer es un archivo de configuración para un dispositivo conectado a la vez.',
  },
  {
    icon: <IconWorld />,
    title: 'Cambio de servidor',
    text: 'Elija o cambie el servidor de cada peer desde su panel cuando lo necesite.',
  },
];

const CLIENT_FEATURES: Feature[] = [
  {
    icon: <IconDownload />,
    title: 'Cliente oficial de WireGuard',
    text: 'Importe su configuración en la aplicación oficial para Windows, macOS, Linux, Android o iOS.',
  },
  {
    icon: <IconUsersGroup />,
    title: 'Salas privadas',
    text: 'Reúna sus peers con los de sus amigos en una red privada, ideal para juegos en LAN.',
  },
  {
    icon: <IconShieldLock />,
    title: 'Compatible con routers',
    text: 'Use su peer en routers con WireGuard, incluidos MikroTik desde la versión 7.1.',
  },
];

function FeatureCards({ features }: { features: Feature[] }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg">
      {features.map((feature) => (
        <Card key={feature.title} withBorder padding="lg">
          <Stack gap="xs">
            <ThemeIcon size="lg" variant="light">
              {feature.icon}
            </ThemeIcon>
            <Text fw={700}>{feature.title}</Text>
            <Text size="sm" c="dimmed">
              {feature.text}
            </Text>
          </Stack>
        </Card>
      ))}
    </SimpleGrid>
  );
}

export function LandingPage() {
  usePageTitle('Bienvenido');
  const productName = useProductName();

  return (
    <>
      <PublicHeader>
        <Anchor component={Link} to="/plans">
          Planes
        </Anchor>
        <Button component={Link} to="/login" variant="light">
          Iniciar sesión
        </Button>
      </PublicHeader>
      <Container size="lg" py={48}>
        <Stack gap={56}>
          <Stack align="center" gap="md" ta="center">
            <Title order={1}>{productName}: su conexión segura, privada y rápida</Title>
            <Text size="lg" c="dimmed" maw={680}>
              Proteja su conexión con una VPN basada en WireGuard. Sin complicaciones: compre un plan, descargue su
              configuración y conéctese.
            </Text>
            <Button component={Link} to="/register" size="lg">
              Comienza ahora
            </Button>
          </Stack>

          <FeatureCards features={PITCH} />

          <Card withBorder padding="xl" bg="var(--mantine-color-indigo-0)">
            <Group align="flex-start" wrap="nowrap" gap="lg">
              <ThemeIcon size={48} radius="xl" variant="filled">
                <IconWallet />
              </ThemeIcon>
              <Stack gap="xs">
                <Group gap="xs">
                  <Title order={2}>¿Está en Cuba o es cubano en el exterior?</Title>
                  <Badge>Pagos adaptados</Badge>
                </Group>
                <Text>
                  Pensamos en usted: puede pagar sus planes con métodos de pago adaptados a Cuba, desde dentro o fuera
                  de la isla, sin necesidad de tarjetas internacionales.
                </Text>
              </Stack>
            </Group>
          </Card>

          <Stack gap="md">
            <Title order={2}>Planes</Title>
            <FeatureCards features={PLAN_FEATURES} />
            <Group>
              <Button component={Link} to="/plans" variant="light">
                Ver planes
              </Button>
            </Group>
          </Stack>

          <Stack gap="md">
            <Title order={2}>Cliente</Title>
            <FeatureCards features={CLIENT_FEATURES} />
            <Group>
              <Button
                component="a"
                href={WIREGUARD_INSTALL_URL}
                target="_blank"
                rel="noopener noreferrer"
                leftSection={<IconDownload size={18} />}
              >
                Descargar el cliente WireGuard
              </Button>
            </Group>
          </Stack>
        </Stack>
      </Container>
    </>
  );
}
