/**
 * The warning on a peer whose configuration two devices use at once (docs/operations.md, "One device per peer"): its
 * node saw the connection alternate between two addresses. It stays until the keys are regenerated.
 */
import { Alert, Anchor, Text } from '@mantine/core';
import { IconDevices } from '@tabler/icons-react';
import { Link } from 'react-router';

export const SHARED_CONFIG_TITLE = 'Este peer se está usando en dos dispositivos a la vez';

/** A full-width row or banner under the peer it is about (`data-peer` names it, for tests). */
export function SharedConfigWarning({ peerName }: { peerName: string }) {
  return (
    <Alert
      color="yellow"
      variant="light"
      p="xs"
      icon={<IconDevices size={16} />}
      title={SHARED_CONFIG_TITLE}
      data-testid="shared-config-warning"
      data-peer={peerName}
    >
      <Text size="sm">
        Su conexión alterna entre dos direcciones: cada peer admite un solo dispositivo a la vez y los dos se cortan
        entre sí. Para el otro dispositivo,{' '}
        <Anchor component={Link} to="/dashboard/plans" size="sm">
          compre un segundo peer
        </Anchor>
        . Si no reconoce el otro dispositivo, use «Regenerar Peer» y descargue de nuevo la configuración solo en el
        suyo.
      </Text>
    </Alert>
  );
}
