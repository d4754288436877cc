/** A peer's expiration: the date ('Indeterminado' without one), the days left and the Renovar shortcut. */
import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Peer } from '../api/peers';
import { daysLeftColor, daysLeftText, renewPath } from '../expiry';
import { formatExpiration } from '../peer-format';

export function PeerExpiry({ peer, align = 'flex-start' }: { peer: Peer; align?: 'flex-start' | 'flex-end' }) {
  const left = daysLeftText(peer.expiration_date);
  // Peers paid by hand are renewed by staff, a peer staff disabled cannot be bought for, and a peer without
  // expiration has nothing to renew.
  const renewable = peer.expiration_date !== null && !peer.manual_payment && peer.disabled_reason !== 'admin';
  return (
    <Stack gap={4} align={align}>
      <Text size="sm">{formatExpiration(peer.expiration_date)}</Text>
      <Group gap={6}>
        {left && (
          <Badge variant="light" color={daysLeftColor(peer.expiration_date)}>
            {left}
          </Badge>
        )}
        {renewable && (
          <Button
            component={Link}
            to={renewPath(peer.id)}
            size="compact-xs"
            variant="subtle"
            aria-label={`Renovar ${peer.name}`}
          >
            Renovar
          </Button>
        )}
      </Group>
    </Stack>
  );
}
