/** /dashboard/help ('Centro de Ayuda'): VPN setup, room usage (when rooms are allowed) and FAQs. */
import { Accordion, Anchor, List, Stack, Text, Title } from '@mantine/core';
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
      <List.Item>El administrador de la sala puede añadir sus peers, quitar peers, regenerar la contraseña o eliminarla.</List.Item>
    </List>
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
