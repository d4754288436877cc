/** One plan: name, validity in years/months/days, description bullets and price in USD, plus an action. */
import { Card, List, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Plan } from '../api/plans';
import { formatValidity } from '../validity';

export function formatPrice(price: Plan['price']): string {
  return `$${price} USD`;
}

export function descriptionBullets(description: string): string[] {
  return description
    .split('. ')
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

export function PlanCard({ plan, action }: { plan: Plan; action?: ReactNode }) {
  return (
    <Card withBorder shadow="sm" padding="lg" h="100%" data-testid="plan-card">
      <Stack gap="sm" h="100%" justify="space-between">
        <Stack gap="xs">
          <Title order={3}>{plan.name}</Title>
          <Text c="dimmed" size="sm">
            Validez: {formatValidity(plan.validity)}
          </Text>
          <List size="sm" spacing={4}>
            {descriptionBullets(plan.description).map((sentence) => (
              <List.Item key={sentence}>{sentence}</List.Item>
            ))}
          </List>
        </Stack>
        <Stack gap="sm">
          <Text fw={700} size="xl">
            {formatPrice(plan.price)}
          </Text>
          {action}
        </Stack>
      </Stack>
    </Card>
  );
}
