/** The peer's configuration as a QR code for the WireGuard mobile apps; the QR library loads only when opened. */
import { Center, Image, Loader, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { errorMessage } from '../../../lib/api';
import { downloadPeerConfig, type Peer } from '../api/peers';
import { PRIVATE_KEY_WARNING } from '../peer-name';

type QrState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; svg: string };

/** The config text as an SVG QR code. `qrcode` is imported here so it stays out of every other bundle. */
export async function configQrSvg(config: string): Promise<string> {
  const { toString } = await import('qrcode');
  // 'M' keeps a ~350-character wg-quick file scannable on a phone screen.
  return toString(config, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

function QrCode({ peer }: { peer: Peer }) {
  const [state, setState] = useState<QrState>({ status: 'loading' });
  useEffect(() => {
    let current = true;
    downloadPeerConfig(peer.id)
      .then((blob) => blob.text())
      .then(configQrSvg)
      .then((svg) => current && setState({ status: 'ready', svg }))
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
          <Text c="dimmed">Generando código QR...</Text>
        </Stack>
      </Center>
    );
  }
  if (state.status === 'error') return <Text c="red">{state.message}</Text>;
  return (
    <Stack align="center">
      <Image
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(state.svg)}`}
        alt={`Código QR de la configuración de ${peer.name}`}
        w={280}
        h={280}
        fit="contain"
      />
      <Text size="sm" c="dimmed" ta="center">
        Escanee este código con la aplicación WireGuard del teléfono (Añadir túnel, Escanear código QR).{' '}
        {PRIVATE_KEY_WARNING}
      </Text>
    </Stack>
  );
}

export function PeerQrDialog({ peer, onClose }: { peer: Peer | null; onClose: () => void }) {
  return (
    <Modal opened={peer !== null} onClose={onClose} title={peer ? `Código QR de ${peer.name}` : ''} centered>
      {peer && <QrCode peer={peer} />}
    </Modal>
  );
}
