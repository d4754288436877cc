/** /dashboard/help ('Centro de Ayuda'): VPN setup, room usage (when rooms are allowed) and FAQs. */
import { Accordion, Anchor, List, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Accordion.css'; // Help and the room page use it (app/mantine-styles.ts)
import { DiscoveryHelp } from '../../../components/DiscoveryHelp';
import { useCurrentUser } from '../../../lib/current-user';

const WIREGUARD_INSTALL_URL = 'https://www.wireguard.com/install/';

function VpnSetup() {
  return (
    <Stack gap="xs">
      <List type="ordered" spacing="xs">
        <List.Item>
          Instale el cliente oficial de WireGuard en su dispositivo desde{' '}
          <Anchor href={WIREGUARD_INSTALL_URL} target="_blank" rel="noopener noreferrer">
            wireguard.com/install
          </Anchor>
          .
        </List.Item>
        <List.Item>En la sección Peers, descargue el archivo de configuración (.conf) del peer que va a usar.</List.Item>
        <List.Item>
          Abra el cliente de WireGuard, elija «Importar túnel desde archivo» (o escanee el archivo desde el móvil) y
          seleccione el archivo descargado.
        </List.Item>
        <List.Item>Active el túnel: su tráfico pasará a través de la VPN.</List.Item>
      </List>
    </Stack>
  );
}

function RoomUsage() {
  return (
    <List spacing="xs">
      <List.Item>
        Una sala es una red privada compartida: los peers que la integran pueden verse entre sí con su IP privada.
      </List.Item>
      <List.Item>
        Configure primero su alias en Configuración de cuenta; es el nombre con el que los demás le verán en las salas.
      </List.Item>
      <List.Item>
        Cree una sala con uno de sus peers libres, o únase a la sala de un amigo con su nombre y contraseña.
      </List.Item>
      <List.Item>
        Con todos conectados a la misma sala puede jugar en LAN: los juegos que buscan partidas en la red local
        encontrarán a los demás jugadores.
      </List.Item>
      <List.Item>
        En el detalle de la sala verá cada peer con su servidor y si está «En línea» (su dispositivo tiene el túnel
        activo) o «Desconectado».
      </List.Item>
      <List.Item>El administrador de la sala puede añadir sus peers, quitar peers, regenerar la contraseña o eliminarla.</List.Item>
    </List>
  );
}

/** Which games find each other by themselves (their LAN discovery is relayed to the room), and what to do when a
 * game has none (docs/agent-protocol.md, "Discovery relay"). */
function LanGames() {
  return (
    <Stack gap="xs" data-testid="help-lan-games">
      <Text size="sm">
        Los juegos que anuncian sus partidas en la red local las muestran solas en su lista de «LAN» o «Red local», sin
        escribir ninguna dirección: la sala lleva esos anuncios a todos sus miembros, también a los que usan otro
        servidor. Por ejemplo:
      </Text>
      <List spacing="xs" size="sm">
        <List.Item>Minecraft (Java): la partida abierta «a LAN» aparece en «Multijugador».</List.Item>
        <List.Item>Counter-Strike y otros juegos de Source: pestaña «LAN» del buscador de servidores.</List.Item>
        <List.Item>Warcraft III, StarCraft, Age of Empires y la mayoría de los clásicos con opción «Red local (UDP)».</List.Item>
      </List>
      <Text size="sm">
        Si su juego no encuentra la partida (no tiene búsqueda en red local, o solo admite «conectar por IP»), únase por
        dirección: quien crea la partida copia su IP privada del detalle de la sala (junto a su peer) y los demás la
        escriben en la opción «Conectar», «Unirse por IP» o similar del juego, con el puerto si el juego lo pide (por
        ejemplo 10.8.0.2:25565 en Minecraft).
      </Text>
      <Text size="sm">
        Para que le encuentren, el juego debe estar en el dispositivo con el túnel activo y el cortafuegos del equipo
        debe permitirlo en la red. Solo los miembros de su sala reciben sus anuncios.
      </Text>
    </Stack>
  );
}

const FAQS: { question: string; answer: string }[] = [
  {
    question: '¿Puedo usar el mismo peer en varios dispositivos?',
    answer:
      'Cada peer admite un solo dispositivo conectado a la vez. Si quiere conectar varios dispositivos al mismo tiempo, adquiera un peer para cada uno.',
  },
  {
    question: '¿Cómo cambio el servidor de un peer?',
    answer:
      'En Peers, abra el menú de acciones del peer y elija «Cambiar Servidor». Cuando termine el cambio, vuelva a descargar la configuración e impórtela en su cliente: la anterior deja de funcionar.',
  },
  {
    question: '¿Por qué no puedo usar una sala con mi peer?',
    answer:
      'Las salas requieren que el peer esté en un servidor que permita conexiones entre salas. Si su servidor no lo permite, cambie el peer a uno que sí lo haga.',
  },
  {
    question: '¿Puedo usar el servicio en un router?',
    answer:
      'Sí, en cualquier router compatible con WireGuard. Los routers MikroTik están soportados desde la versión 7.1 de RouterOS.',
  },
];

export function HelpPage() {
  const { user } = useCurrentUser();
  return (
    <Stack gap="lg">
      <Title order={2}>Centro de Ayuda</Title>
      <Stack gap="sm">
        <Title order={3}>Configuración del VPN</Title>
        <VpnSetup />
      </Stack>
      {user.web_settings.allow_partys && (
        <Stack gap="sm">
          <Title order={3}>Uso de las Salas</Title>
          <RoomUsage />
          <Title order={4}>Juegos en LAN</Title>
          <LanGames />
          <Title order={4}>Si su partida no aparece en la sala</Title>
          <Text size="sm">
            En el detalle de la sala, «Partidas en la sala» muestra las partidas que anuncian sus miembros, y junto a
            cada peer se ve cuántos anuncios llegaron de él. Si junto al suyo dice «ninguno desde que entró» con la
            partida abierta, sus anuncios no salen por el túnel:
          </Text>
          <DiscoveryHelp />
        </Stack>
      )}
      <Stack gap="sm">
        <Title order={3}>Preguntas Frecuentes</Title>
        <Accordion variant="separated">
          {FAQS.map((faq) => (
            <Accordion.Item key={faq.question} value={faq.question}>
              <Accordion.Control>{faq.question}</Accordion.Control>
              <Accordion.Panel>
                <Text size="sm">{faq.answer}</Text>
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      </Stack>
    </Stack>
  );
}
