package datasets
