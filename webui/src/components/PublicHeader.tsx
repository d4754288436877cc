/** Header of the public pages: product name linking home and the guest links each page asks for. */
import { Anchor, Group, Paper } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useProductName } from '../lib/public-config';

export function PublicHeader({ children }: { children?: ReactNode }) {
  const productName = useProductName();
  return (
    <Paper component="header" shadow="xs" radius={0} px="md" py="sm">
      <Group justify="space-between" maw={1200} mx="auto" wrap="wrap">
        <Anchor component={Link} to="/" fw={700} size="lg" underline="never">
          {productName}
        </Anchor>
        <Group gap="sm">{children}</Group>
      </Group>
    </Paper>
  );
}
