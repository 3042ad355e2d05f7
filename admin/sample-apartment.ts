/**
 * A publishable apartment of `units` units as the platform writes it (`PUT
 * /internal/v1/properties/{ref}`), at the location `<place>-loc` of the owner `<place>-own`: what
 * the benchmarks and the chaos run write and rewrite (a change of `units` is one
 * `property.updated`). Data only, so either may import it without the other's set-up.
 */
export const sampleApartment = (place: string, units: number) => ({
  location: `${place}-loc`,
  owner: `${place}-own`,
  type: 'apartment',
  units,
  name: { ro: 'Apartament', en: 'Apartment' },
  description: { ro: 'Luminos.' },
  capacity: {
    max_guests: 2,
    max_adults: 2,
    max_children: 0,
    max_infants: 0,
    bedrooms: 1,
    bathrooms: 1,
    beds: [{ type: 'double', count: 1 }],
  },
  check_in: { from: '15:00', until: '22:00' },
  check_out: { until: '11:00' },
  rate_plans: [
    {
      key: 'flex',
      name: { ro: 'Flexibil' },
      currency: 'RON',
      cancellation: { refundable: true, free_until_days_before: 3, penalty: 'first_night', penalty_percent: null },
    },
  ],
  city_tax_status: 'none',
  legal: {
    classification: {
      certificate_number: `${place.toUpperCase()}-1`,
      category: 'apartament',
      rating_kind: 'stars',
      rating: 3,
      valid_until: '2035-12-31',
      country: 'RO',
    },
  },
  booking: { method: 'redirect', url: `https://${place}.example/book` },
  house_rules: { smoking: false, pets: false, parties: false },
});
