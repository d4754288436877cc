/**
 * Home's "Requiere su atención": each peer whose server is offline, that two devices share, or that waits for an
 * operation, with the server's own words and the next step (docs/webui.md, "States"). Expiring peers have their
 * own warning beside it (ExpiryWarning).
 */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { Link } from 'react-router';
import { changeServerPath } from '../../peers/peer-links';
import type { HomePeer } from '../api/home';

interface Item {
  key: string;
  text: string;
  action: { label: string; to: string } | null;
}

/** What needs the customer first (an offline server, two devices), then what only needs waiting (operations). */
export function attentionItems(peers: HomePeer[]): Item[] {
  const offline: Item[] = [];
  const shared: Item[] = [];
  const running: Item[] = [];
  for (const peer of peers) {
    if (peer.server_notice) {
      offline.push({
        key: `${peer.id}-offline`,
        text: `${peer.name}: ${peer.server_notice}`,
        action: { label: 'Cambiar de servidor', to: changeServerPath(peer.id) },
      });
    }
    if (peer.shared_config_warning) {
      shared.push({
        key: `${peer.id}-devices`,
        text: `${peer.name}: se está usando en dos dispositivos a la vez y los dos se cortan entre sí. Use uno solo, compre un segundo peer o regenere este si no reconoce el otro dispositivo.`,
        action: { label: 'Ver en Peers', to: '/dashboard/peers' },
      });
    }
    if (peer.operation) {
      running.push({ key: `${peer.id}-operation`, text: `${peer.name}: ${peer.operation.message}`, action: null });
    }
  }
  return [...offline, ...shared, ...running];
}

export function AttentionList({ peers }: { peers: HomePeer[] }) {
  const items = attentionItems(peers);
  if (items.length === 0) return null;
  return (
    <Alert color="orange" icon={<IconAlertTriangle />} title="Requiere su atención" data-testid="home-attention">
      <Stack gap="xs">
        {items.map((item) => (
          <Group key={item.key} justify="space-between" wrap="wrap" gap="xs" data-testid="attention-item">
            <Text size="sm" style={{ flex: '1 1 16rem', minWidth: 0, overflowWrap: 'anywhere' }}>
              {item.text}
            </Text>
            {item.action && (
              <Button component={Link} to={item.action.to} size="xs">
                {item.action.label}
              </Button>
            )}
          </Group>
        ))}
      </Stack>
    </Alert>
  );
}
