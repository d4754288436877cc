/** The centred card every account page (login, register, recovery...) is drawn in. */
import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useProductName } from '../../../lib/public-config';

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  const productName = useProductName();
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper withBorder shadow="md" p="xl" w="100%" maw={420}>
        <Stack gap="md">
          <Stack gap={0}>
            <Text c="dimmed" size="sm">
              {productName}
            </Text>
            <Title order={2}>{title}</Title>
          </Stack>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
