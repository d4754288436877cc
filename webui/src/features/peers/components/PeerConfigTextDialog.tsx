/** 'Ver configuración': the wg-quick file as text with a copy button (the same call as the download), for a client
 * that takes a pasted configuration. Carries the QR code's warning: the text holds the private key. */
import { Alert, Button, Center, Code, CopyButton, Loader, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { fetchPeerConfigText, type Peer } from '../api/peers';
import { PRIVATE_KEY_WARNING } from '../peer-name';

type TextState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; text: string };

function ConfigText({ peer }: { peer: Peer }) {
  const [state, setState] = useState<TextState>({ status: 'loading' });
  useEffect(() => {
    let current = true;
    fetchPeerConfigText(peer.id)
      .then((text) => current && setState({ status: 'ready', text }))
      .catch((error: unknown) => {
        if (current) setState({ status: 'error', message: errorMessage(error, 'Error al descargar la configuración') });
      });
    return () => {
      current = false;
    };
  }, [peer.id]);

  if (state.status === 'loading') {
    return (
      <Center py="xl">
        <Stack align="center" gap="xs">
          <Loader />
          <Text>Cargando configuración...</Text>
        </Stack>
      </Center>
    );
  }
  if (state.status === 'error') return <Text c="red">{state.message}</Text>;
  return (
    <Stack>
      <Alert color="yellow" icon={<IconAlertTriangle />} p="xs">
        <Text size="sm">{PRIVATE_KEY_WARNING}</Text>
      </Alert>
      {/* Long keys wrap instead of widening the dialog past a phone's screen. */}
      <Code block aria-label={`Configuración de ${peer.name}`} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {state.text}
      </Code>
      <CopyButton value={state.text} timeout={2000}>
        {({ copied, copy }) => (
          <Button
            leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            color={copied ? 'teal' : undefined}
            onClick={copy}
          >
            {copied ? 'Configuración copiada' : 'Copiar configuración'}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}

export function PeerConfigTextDialog({ peer, onClose }: { peer: Peer | null; onClose: () => void }) {
  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Configuración de ${peer.name}` : ''} closeButtonProps={{ 'aria-label': 'Cerrar' }} centered size="lg">
      {peer && <ConfigText peer={peer} />}
    </Modal>
  );
}
