import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes the service registers on its namespace, so an operator can find a
 * workflow in the Temporal UI by channel, endpoint, event type or state.
 */
export const SA_CHANNEL = defineSearchAttributeKey('SvcChannel', SearchAttributeType.KEYWORD);
export const SA_ENDPOINT = defineSearchAttributeKey('SvcEndpoint', SearchAttributeType.KEYWORD);
export const SA_EVENT_TYPE = defineSearchAttributeKey('SvcEventType', SearchAttributeType.KEYWORD);
export const SA_STATE = defineSearchAttributeKey('SvcState', SearchAttributeType.KEYWORD);
/** The platform's reference of the property a certificate-expiry workflow watches. */
export const SA_PROPERTY = defineSearchAttributeKey('SvcProperty', SearchAttributeType.KEYWORD);
/** `YYYY-MM-DD`: the local date on which the watched identifier lapses (unset when none lies ahead). */
export const SA_EXPIRES_ON = defineSearchAttributeKey('SvcExpiresOn', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [SA_CHANNEL, SA_ENDPOINT, SA_EVENT_TYPE, SA_STATE, SA_PROPERTY, SA_EXPIRES_ON];
