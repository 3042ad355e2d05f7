import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes the service registers on its namespace, so an operator can find a
 * workflow in the Temporal UI by channel, endpoint, event type or state.
 */
export const SA_CHANNEL = defineSearchAttributeKey('SvcChannel', SearchAttributeType.KEYWORD);
export const SA_ENDPOINT = defineSearchAttributeKey('SvcEndpoint', SearchAttributeType.KEYWORD);
export const SA_EVENT_TYPE = defineSearchAttributeKey('SvcEventType', SearchAttributeType.KEYWORD);
export const SA_STATE = defineSearchAttributeKey('SvcState', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [SA_CHANNEL, SA_ENDPOINT, SA_EVENT_TYPE, SA_STATE];
